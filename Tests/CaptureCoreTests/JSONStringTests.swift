import CaptureCore
import Foundation
import Testing

@Suite struct JSONStringTests {
    @Test(arguments: ["BICYCLE", "", "a \"quoted\" \\ path", "line\nbreak\ttab\r", "\u{0}\u{1b}[2J", "Straße 🚲"])
    func quotedTextIsAJSONStringThatReadsBackUnchanged(_ text: String) throws {
        let literal = JSONString.quoted(text)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(decoded == [text])
        #expect(!literal.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func escapesAsRFC8259Writes() {
        #expect(JSONString.quoted("a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
    }
}
