import CaptureCore
import Foundation
import Testing

@Suite struct ByteSizeTests {
    @Test(arguments: [
        ("65536", 65_536), ("512K", 524_288), ("512k", 524_288), ("64M", 67_108_864), ("2G", 2_147_483_648),
        ("1KB", 1_024), ("1KiB", 1_024), ("3MiB", 3_145_728), ("1gb", 1_073_741_824), ("10B", 10), (" 7 ", 7),
    ] as [(String, Int64)])
    func sizesParse(_ text: String, _ bytes: Int64) {
        #expect(ByteSize(parsing: text)?.bytes == bytes)
    }

    @Test(arguments: ["0", "-5", "12X", "M", "", "1.5G", "+5", "9223372036854775807K", "K5"])
    func nonSizesDoNot(_ text: String) {
        #expect(ByteSize(parsing: text) == nil)
    }

    @Test func aSizeReadsBackAndCodesAsItsBytes() throws {
        let size = try #require(ByteSize(parsing: "2M"))
        #expect(ByteSize(parsing: size.description) == size)
        #expect(String(decoding: try JSONEncoder().encode(size), as: UTF8.self) == "2097152")
        #expect(try JSONDecoder().decode(ByteSize.self, from: Data("2097152".utf8)) == size)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ByteSize.self, from: Data("0".utf8)) }
        #expect(ByteSize(bytes: 0) == nil)
        #expect(ByteSize(parsing: "1K")! < size)
    }
}
