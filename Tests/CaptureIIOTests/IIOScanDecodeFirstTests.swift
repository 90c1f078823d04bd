import Testing
import CaptureCore
import CaptureIIO

@Suite struct IIOScanDecodeFirstTests {
    /// `decodeFirst`, `nil` when it throws.
    func first(_ type: IIOScanType, _ bytes: [UInt8], at offset: Int) -> IIORawValue? {
        bytes.withUnsafeBytes { buffer in try? type.decodeFirst(buffer, at: offset) }
    }

    @Test("decodeFirst is the first value of decode, for every sign, order, shift and repeat; too short is refused")
    func sameAsDecode() throws {
        let bytes: [UInt8] = [0xF1, 0x82, 0x7F, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0]
        for text in ["le:s16/16>>0", "be:s16/16>>0", "le:u12/16>>4", "be:s12/16>>4", "le:s16/16X3>>0", "le:u24/32>>8",
            "be:u32/32X2>>0", "le:s64/64>>0", "be:u8/8>>0", "le:s48/64>>2"]
        {
            let type = try IIOScanType(parsing: text)
            for offset in 0...(bytes.count - type.length) {
                let all = try type.decode(bytes, at: offset)
                #expect(first(type, bytes, at: offset) == all.first, "\(text) at \(offset)")
            }
            #expect(first(type, bytes, at: bytes.count - type.storageBytes + 1) == nil)
            #expect(first(type, bytes, at: -1) == nil)
        }
    }
}
