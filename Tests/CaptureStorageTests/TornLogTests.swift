import CaptureStorage
import Foundation
import Glibc
import Testing

/// The recorder's log after a power cut (docs/faults.md, "Power cuts"): its lines are synced one
/// by one, so only the line being written can be torn, and `cutTornLastLine` cuts exactly that off.
@Suite struct TornLogTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-journal-\(UUID().uuidString).jsonl").path
    let whole = "{\"event\":\"start\",\"t\":1}\n{\"event\":\"pause\",\"t\":2}\n"

    private func write(_ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
    private var contents: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<absent>" }

    @Test func aTornLastLineIsCutOff() throws {
        defer { unlink(path) }
        try write(Array((whole + "{\"event\":\"res").utf8))
        AttachmentFile.cutTornLastLine(path)
        #expect(contents == whole)
    }

    /// A sector of the last line that never reached the medium reads as zeros, even when the
    /// line's end (its newline) did.
    @Test func aLineWithAHoleIsCutOff() throws {
        defer { unlink(path) }
        try write(Array(whole.utf8) + [UInt8](repeating: 0, count: 12) + Array("\"t\":3}\n".utf8))
        AttachmentFile.cutTornLastLine(path)
        #expect(contents == whole)
    }

    /// A file written whole without a final newline, or with a blank line, is not torn.
    @Test func aLastLineWithoutNewlineAndABlankLineStay() throws {
        defer { unlink(path) }
        let text = whole + "\n{\"event\":\"stop\",\"t\":3}"
        try write(Array(text.utf8))
        AttachmentFile.cutTornLastLine(path)
        #expect(contents == text)
    }

    @Test func aWholeLogAndAMissingOneStayAsTheyAre() throws {
        defer { unlink(path) }
        AttachmentFile.cutTornLastLine(path)
        #expect(contents == "<absent>")
        try write(Array(whole.utf8))
        AttachmentFile.cutTornLastLine(path)
        #expect(contents == whole)
    }
}
