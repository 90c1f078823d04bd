import CaptureCore
import CaptureIIO
import Testing

@Suite struct IIOScanTypeTests {
    @Test(arguments: [
        ("le:s16/16>>0", IIOScanType.Endianness.little, true, 16, 16, 1, 0),
        ("be:u12/16>>4", .big, false, 12, 16, 1, 4),
        ("le:s48/64>>2", .little, true, 48, 64, 1, 2),
        ("le:s16/16X3>>0", .little, true, 16, 16, 3, 0),
        ("le:s12/16>>4", .little, true, 12, 16, 1, 4),
        ("le:s64/64>>0", .little, true, 64, 64, 1, 0),
        ("be:u8/8", .big, false, 8, 8, 1, 0),
        ("le:u24/32X2", .little, false, 24, 32, 2, 0),
    ])
    func parsesKernelTypeStrings(
        text: String, endianness: IIOScanType.Endianness, signed: Bool, bits: Int, storage: Int, repeatCount: Int, shift: Int
    ) throws {
        let type = try IIOScanType(parsing: text + "\n")
        #expect(type.endianness == endianness)
        #expect(type.isSigned == signed)
        #expect(type.realBits == bits && type.storageBits == storage)
        #expect(type.repeatCount == repeatCount && type.shift == shift)
        #expect(!type.isFullyDefined)
        #expect(try IIOScanType(parsing: type.description) == type)
    }

    @Test func upperCaseSignMeansFullyDefined() throws {
        let signed = try IIOScanType(parsing: "le:S16/16>>0")
        #expect(signed.isSigned && signed.isFullyDefined)
        let unsigned = try IIOScanType(parsing: "be:U32/32>>0")
        #expect(!unsigned.isSigned && unsigned.isFullyDefined)
        #expect(unsigned.description == "be:U32/32>>0")
    }

    @Test func badTypeStringsAreTypedErrors() {
        for text in ["", "le", "xe:s16/16>>0", "le:s16", "le:s16/", "le:s/16>>0", "le:s16/16>>", "le:s16/16>>0 x",
                     "le:s16/16>0", "le:s16/16X>>0", "le-s16/16>>0", "le:s-16/16>>0", "le:s99999/16"] {
            #expect(throws: IIOError.invalidScanType(text), "\(text)") { try IIOScanType(parsing: text) }
        }
        #expect(throws: IIOError.unsupportedSign("f", type: "le:f32/32>>0")) { try IIOScanType(parsing: "le:f32/32>>0") }
        for text in ["le:s17/16>>0", "le:s16/12>>0", "le:s16/16>>4", "le:s0/16>>0", "le:s16/16X0>>0", "le:u64/128>>0"] {
            #expect(throws: IIOError.inconsistentBits(text), "\(text)") { try IIOScanType(parsing: text) }
        }
    }

    @Test func signExtensionAndMasking() throws {
        // le:s12/16>>4 holding -5: (-5 << 4) = 0xFFB0, little endian B0 FF.
        let s12 = try IIOScanType(parsing: "le:s12/16>>4")
        #expect(try s12.decode([0xB0, 0xFF], at: 0) == [.signed(-5)])
        // The low four bits are noise and must be shifted out.
        #expect(try s12.decode([0xBF, 0xFF], at: 0) == [.signed(-5)])
        #expect(try s12.decode([0xF0, 0x7F], at: 0) == [.signed(2047)])
        #expect(try s12.decode([0x00, 0x80], at: 0) == [.signed(-2048)])
        // Unsigned: no sign extension even with the top bit set.
        let u12 = try IIOScanType(parsing: "le:u12/16>>4")
        #expect(try u12.decode([0x00, 0x80], at: 0) == [.unsigned(2048)])
        // Bits above realBits are masked away before sign extension (K-ABI s48/64>>2 example).
        let s48 = try IIOScanType(parsing: "le:s48/64>>2")
        let value: Int64 = -123_456_789_012
        // Stored: the 48-bit value shifted left by 2, garbage in the top 14 bits and the low 2 bits.
        let word = (UInt64(bitPattern: value) << 2) & 0x0003_FFFF_FFFF_FFFC | 0xABCC_0000_0000_0000 | 0b11
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
        #expect(try s48.decode(bytes, at: 0) == [.signed(value)])
    }

    @Test func bigEndian() throws {
        let u12 = try IIOScanType(parsing: "be:u12/16>>4")
        #expect(try u12.decode([0xAB, 0xCF], at: 0) == [.unsigned(0xABC)])
        let s32 = try IIOScanType(parsing: "be:s32/32>>0")
        #expect(try s32.decode([0, 0xFF, 0xFF, 0xFF, 0xFE], at: 1) == [.signed(-2)])
        let le32 = try IIOScanType(parsing: "le:s32/32>>0")
        #expect(try le32.decode([0xFE, 0xFF, 0xFF, 0xFF], at: 0) == [.signed(-2)])
    }

    @Test func repeatAnd64Bit() throws {
        let triple = try IIOScanType(parsing: "le:s16/16X3>>0")
        #expect(triple.length == 6)
        #expect(try triple.decode([0x01, 0x00, 0xFF, 0xFF, 0x00, 0x40], at: 0) == [.signed(1), .signed(-1), .signed(16384)])
        let u64 = try IIOScanType(parsing: "le:u64/64>>0")
        let all = try u64.decode([UInt8](repeating: 0xFF, count: 8), at: 0)
        #expect(all == [.unsigned(.max)])
        #expect(all[0].int64Value == nil)
        let s64 = try IIOScanType(parsing: "le:s64/64>>0")
        let ts: Int64 = 1_718_452_800_009_615_384
        let tsBytes = (0..<8).map { UInt8(truncatingIfNeeded: UInt64(ts) >> (8 * UInt64($0))) }
        #expect(try s64.decode(tsBytes, at: 0).first?.int64Value == ts)
    }

    @Test func shortBuffersAreErrors() throws {
        let s16 = try IIOScanType(parsing: "le:s16/16>>0")
        #expect(throws: IIOError.bufferTooShort(needed: 3, available: 2)) { try s16.decode([0, 0], at: 1) }
        #expect(throws: IIOError.bufferTooShort(needed: 1, available: 2)) { try s16.decode([0, 0], at: -1) }
    }
}

@Suite struct IIOScanLayoutTests {
    private func channel(_ name: String, _ index: Int, _ type: String, enabled: Bool = true) throws -> IIOScanChannel {
        IIOScanChannel(name: name, index: index, type: try IIOScanType(parsing: type), isEnabled: enabled)
    }

    @Test func kernelDocumentationExample() throws {
        // K-DEVBUF: u16, u32, u32, u64 → offsets 0, 4, 8, 16.
        let all = try IIOScanLayout(channels: [
            channel("c0", 0, "le:u16/16>>0"), channel("c1", 1, "le:u32/32>>0"),
            channel("c2", 2, "le:u32/32>>0"), channel("c3", 3, "le:u64/64>>0"),
        ])
        #expect(all.elements.map(\.offset) == [0, 4, 8, 16])
        #expect(all.scanSize == 24)
        // Only u16 and u64 enabled → offsets 0, 8.
        let two = try IIOScanLayout(channels: [
            channel("c0", 0, "le:u16/16>>0"), channel("c1", 1, "le:u32/32>>0", enabled: false),
            channel("c2", 2, "le:u32/32>>0", enabled: false), channel("c3", 3, "le:u64/64>>0"),
        ])
        #expect(two.elements.map(\.offset) == [0, 8])
        #expect(two.elements.map(\.channel.name) == ["c0", "c3"])
        #expect(two.scanSize == 16)
    }

    @Test func threeAxesAndTimestampTake16Bytes() throws {
        // Given in directory order, not index order; indices with a gap.
        let layout = try IIOScanLayout(channels: [
            channel("in_timestamp", 7, "le:s64/64>>0"), channel("in_accel_z", 2, "le:s16/16>>0"),
            channel("in_accel_x", 0, "le:s16/16>>0"), channel("in_accel_y", 1, "le:s16/16>>0"),
        ])
        #expect(layout.elements.map(\.channel.name) == ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(layout.elements.map(\.offset) == [0, 2, 4, 8])
        #expect(layout.scanSize == 16)
    }

    @Test func paddingToTheLargestElement() throws {
        let layout = try IIOScanLayout(channels: [channel("a", 0, "le:u32/32>>0"), channel("b", 1, "le:u16/16>>0")])
        #expect(layout.elements.map(\.offset) == [0, 4])
        #expect(layout.scanSize == 8)
        let bytes = try IIOScanLayout(channels: [channel("a", 0, "le:u8/8>>0"), channel("b", 1, "le:u8/8>>0")])
        #expect(bytes.scanSize == 2)
        let repeated = try IIOScanLayout(channels: [channel("q", 0, "le:s16/16X3>>0"), channel("t", 1, "le:s64/64>>0")])
        #expect(repeated.elements.map(\.offset) == [0, 8])
        #expect(repeated.scanSize == 16)
        #expect(try IIOScanLayout(channels: []).scanSize == 0)
    }

    @Test func duplicateIndicesAreRejected() throws {
        #expect(throws: IIOError.duplicateScanIndex(1)) {
            try IIOScanLayout(channels: [channel("a", 1, "le:u16/16>>0"), channel("b", 1, "le:u16/16>>0")])
        }
    }

    @Test func decodesAPackedScanToSIValues() throws {
        // struct.pack("<hhh2xq", 100, -200, 16384, 1718452800009615384), as in the research notes.
        let layout = try IIOScanLayout(channels: [
            channel("in_accel_x", 0, "le:s16/16>>0"), channel("in_accel_y", 1, "le:s16/16>>0"),
            channel("in_accel_z", 2, "le:s16/16>>0"), channel("in_timestamp", 3, "le:s64/64>>0"),
        ])
        let timestamp: Int64 = 1_718_452_800_009_615_384
        func le(_ value: Int64, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * UInt64($0))) }
        }
        let scan = le(100, 2) + le(-200, 2) + le(16384, 2) + [0, 0] + le(timestamp, 8)
        let twoScans = scan + scan
        #expect(twoScans.count == 2 * layout.scanSize)
        let values = try layout.decode(twoScans, scanAt: layout.scanSize)
        let calibration = IIOCalibration(scale: 0.000598)
        #expect(abs(calibration.apply(values["in_accel_x"]![0]) - 0.0598) < 1e-12)
        #expect(abs(calibration.apply(values["in_accel_y"]![0]) + 0.1196) < 1e-12)
        #expect(abs(calibration.apply(values["in_accel_z"]![0]) - 9.797632) < 1e-12)
        #expect(values["in_timestamp"]?.first?.int64Value == timestamp)
        #expect(IIOUnits.unixMilliseconds(fromNanoseconds: timestamp) == 1_718_452_800_009)
        #expect(throws: IIOError.bufferTooShort(needed: 32, available: 31)) {
            try layout.decode(Array(twoScans.dropLast()), scanAt: 16)
        }
    }
}
