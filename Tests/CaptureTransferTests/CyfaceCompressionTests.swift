import CaptureCore
import CaptureTransfer
import Testing

@Suite struct CyfaceCompressionTests {
    typealias T = CyfaceTestSupport

    /// Compressible but not trivial input.
    static let input: [UInt8] = {
        var random = SplitMix64(seed: 5)
        return (0..<300_000).map { i in i % 3 == 0 ? UInt8.random(in: 0...15, using: &random) : UInt8(i % 251) }
    }()

    @Test func deflateThenInflateByteByByteAndInPieces() throws {
        let deflater = try Deflater(level: 5, chunkSize: 1000)
        var compressed: [UInt8] = []
        var largest = 0
        var start = 0
        while start < Self.input.count {
            let end = min(start + 7_777, Self.input.count)
            try deflater.write(Self.input[start..<end]) {
                largest = max(largest, $0.count)
                compressed += $0
            }
            start = end
        }
        try deflater.finish {
            largest = max(largest, $0.count)
            compressed += $0
        }
        #expect(largest <= 1000)
        #expect(compressed.count < Self.input.count / 2)
        #expect(deflater.totalIn == Self.input.count)
        #expect(deflater.totalOut == compressed.count)

        let inflater = try Inflater(chunkSize: 333)
        var plain: [UInt8] = []
        for byte in compressed.prefix(200) { try inflater.write([byte]) { plain += $0 } }
        try inflater.write(compressed.dropFirst(200)) {
            #expect($0.count <= 333)
            plain += $0
        }
        try inflater.finish()
        #expect(inflater.format == .rawDeflate)
        #expect(inflater.isComplete)
        #expect(plain == Self.input)
    }

    @Test func detectsContainers() {
        #expect(CompressionFormat.detect(0x1F, 0x8B) == .gzip)
        #expect(CompressionFormat.detect(0x78, 0x9C) == .zlib)
        #expect(CompressionFormat.detect(0x78, 0x01) == .zlib)
        #expect(CompressionFormat.detect(0x78, 0xDA) == .zlib)
        #expect(CompressionFormat.detect(0x78, 0x9D) == .rawDeflate)
        #expect(CompressionFormat.detect(0x00, 0x03) == .rawDeflate)
    }

    @Test func rejectsBadArguments() {
        #expect(throws: CyfaceError.self) { try Deflater(level: 10) }
        #expect(throws: CyfaceError.self) { try Deflater(chunkSize: 0) }
        #expect(throws: CyfaceError.self) { try Inflater(chunkSize: 0) }
        #expect(throws: CyfaceError.self) {
            try TransferFileWriter.serialize(CyfaceMeasurement(), batchSize: 0)
        }
    }

    @Test func randomBytesNeverTrapTheDecoder() {
        var random = SplitMix64(seed: 11)
        for length in [1, 2, 3, 5, 17, 64, 300] {
            for round in 0..<200 {
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                // Half the cases start like a Cyface file to get past the header checks.
                if round.isMultiple(of: 2), length >= 5 { bytes.replaceSubrange(0..<5, with: T.hex("0003800103")) }
                _ = try? TransferFileDecoder.decode(bytes)
            }
        }
    }
}
