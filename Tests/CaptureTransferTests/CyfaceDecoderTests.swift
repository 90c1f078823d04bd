import CaptureCore
import CaptureTestSupport
import CaptureTransfer
import Foundation
import Testing

@Suite struct CyfaceDecoderTests {
    typealias T = CyfaceTestSupport

    /// A measurement with several batches per sensor, events and varied values.
    static func richMeasurement() -> CyfaceMeasurement {
        var random = SplitMix64(seed: 2026)
        var fixes: [Fix] = []
        for i in 0..<120 {
            fixes.append(
                Fix(
                    timestamp: 1_781_424_000_000 + Int64(i) * 1000, latitude: 51.05 + Double(i) * 1e-5,
                    longitude: 13.73 - Double(i) * 2e-5, horizontalAccuracy: i % 7 == 0 ? nil : .random(in: 2...30, using: &random),
                    speed: i % 5 == 0 ? nil : .random(in: -1...15, using: &random)))
        }
        var samples: [MotionSensor: [MotionSample]] = [:]
        for sensor in MotionSensor.allCases {
            let count = sensor == .magnetometer ? 0 : 1_950
            samples[sensor] = (0..<count).map {
                MotionSample(
                    timestamp: 1_781_424_000_000 + Int64($0) * 10, x: .random(in: -20...20, using: &random),
                    y: .random(in: -20...20, using: &random), z: .random(in: -20...20, using: &random))
            }
        }
        let events = [
            Event(timestamp: 1_781_424_000_000, type: .lifecycleStart),
            Event(timestamp: 1_781_424_000_000, type: .modalityTypeChange, value: "BICYCLE"),
            Event(timestamp: 1_781_424_050_000, type: .lifecyclePause),
            Event(timestamp: 1_781_424_060_000, type: .lifecycleResume),
            Event(timestamp: 1_781_424_120_000, type: .lifecycleStop),
        ]
        return CyfaceMeasurement(fixes: fixes, samples: samples, events: events)
    }

    @Test func roundTripWithinPrecision() throws {
        let measurement = Self.richMeasurement()
        let compressed = try TransferFileWriter.serialize(measurement, compression: .cyface)
        let file = try TransferFileDecoder.decode(compressed)
        #expect(file.compression == .rawDeflate)
        #expect(file.hasHeader)
        #expect(file.formatVersion == 3)
        #expect(file.events == measurement.events)
        #expect(file.fixes.count == measurement.fixes.count)
        for (a, b) in zip(measurement.fixes, file.fixes) {
            #expect(a.timestamp == b.timestamp)
            #expect(abs(a.latitude - b.latitude) <= 0.5e-6 + 1e-12)
            #expect(abs(a.longitude - b.longitude) <= 0.5e-6 + 1e-12)
            #expect(abs((a.horizontalAccuracy ?? 0) - (b.horizontalAccuracy ?? .nan)) <= 0.005 + 1e-12)
            #expect(abs((a.speed ?? 0) - (b.speed ?? .nan)) <= 0.005 + 1e-12)
        }
        #expect(file.batches[.accelerometer]?.map(\.count) == [800, 800, 350])
        #expect(file.batches[.magnetometer] == nil)
        for sensor in [MotionSensor.accelerometer, .gyroscope] {
            let original = measurement.samples[sensor] ?? []
            let decoded = file.samples(of: sensor)
            #expect(decoded.count == original.count)
            for (a, b) in zip(original, decoded) {
                #expect(a.timestamp == b.timestamp)
                #expect(abs(a.x - b.x) <= 0.0005 + 1e-12 && abs(a.y - b.y) <= 0.0005 + 1e-12 && abs(a.z - b.z) <= 0.0005 + 1e-12)
            }
        }
        // Re-encoding the decoded values gives the same bytes: decoding loses nothing the format holds.
        let again = CyfaceMeasurement(
            fixes: file.fixes,
            samples: [.accelerometer: file.samples(of: .accelerometer), .gyroscope: file.samples(of: .gyroscope)],
            events: file.events)
        #expect(try TransferFileWriter.serialize(again) == TransferFileWriter.serialize(measurement))
    }

    @Test func acceptsEveryContainerWithAndWithoutHeader() throws {
        let plain = T.androidVector
        let bare = Array(plain.dropFirst(2))
        // zlib = 78 9c || raw deflate || Adler-32 (big-endian).
        let raw = try TransferFileWriter.serialize(T.androidMeasurement, compression: .cyface)
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in plain {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        let zlib: [UInt8] = [0x78, 0x9C] + raw + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        let gzip = try gzipped(plain)
        for (input, format, header) in [
            (plain, CompressionFormat?.none, true), (bare, nil, false), (raw, .rawDeflate, true), (zlib, .zlib, true),
            (gzip, .gzip, true),
        ] {
            let file = try TransferFileDecoder.decode(input)
            #expect(file.compression == format)
            #expect(file.hasHeader == header)
            #expect(file.fixes.count == 3)
            #expect(file.batches[.accelerometer]?.first?.count == 21)
            #expect(file.batches[.gyroscope]?.first?.count == 20)
            #expect(file.batches[.magnetometer]?.first == Array(repeating: MotionSample(timestamp: 1, x: 1, y: 1, z: 1), count: 10))
        }
    }

    private func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
        let path = tempPath("gz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let gzip = try Program.run("/bin/sh", ["-c", "gzip -c -n > \"$0\"", path], input: bytes)
        #expect(gzip.status == 0, "gzip failed: \(gzip.stderr)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func tempPath(_ suffix: String) -> String {
        "\(NSTemporaryDirectory())/capture-cyface-\(ProcessInfo.processInfo.processIdentifier).\(suffix)"
    }

    @Test func rejectsVersion1WithOffset() throws {
        // v1: 00 01, then u32 counts, then records (not protobuf).
        let v1 = T.hex("0001 00000001 00000000 00000000 00000000") + Array(repeating: 0, count: 36)
        for input in [v1, try deflate(v1)] {
            do {
                _ = try TransferFileDecoder.decode(input)
                Issue.record("expected an error")
            } catch {
                #expect(error.kind == .unsupportedVersion(1))
                #expect(error.offset == 0)
                #expect(error.description.contains("v1"))
            }
        }
    }

    @Test func rejectsVersion2AndOtherVersions() throws {
        // §1.10b bytes: bare protobuf with format_version = 2.
        let v2 = T.hex("8001028a011c0a06f0cdc1ddb15e12049cbcd9301a04ca9f880d2a02c00c3202d00f")
        do {
            _ = try TransferFileDecoder.decode(v2)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupportedVersion(2))
            #expect(error.offset == 0)
        }
        let deflatedV2 = try deflate(T.hex("0002") + v2)
        do {
            _ = try TransferFileDecoder.decode(deflatedV2)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupportedVersion(2))
        }
        do {
            _ = try TransferFileDecoder.decode(T.hex("0004 800104 8a0100"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupportedVersion(4))
            #expect(error.offset == 0)
        }
        // Header 3 but the field says 2: offset of the field's tag.
        do {
            _ = try TransferFileDecoder.decode(T.hex("0003 800102 8a0100"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupportedVersion(2))
            #expect(error.offset == 2)
        }
        do {
            _ = try TransferFileDecoder.decode(T.hex("0003 8a0100"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupportedVersion(0))
        }
    }

    @Test func truncatedUncompressedInputNamesTheOffset() throws {
        let plain = T.androidVector
        // Cut inside the accelerations field (starts at byte 39; its length says 0x61 bytes).
        do {
            _ = try TransferFileDecoder.decode(Array(plain[0..<100]))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.offset == 41)
            #expect(error.detail.contains("field 18"))
        }
        // Every prefix throws or decodes; none traps. Cuts inside fields must throw.
        var failures = 0
        for length in 0..<plain.count {
            do { _ = try TransferFileDecoder.decode(Array(plain[0..<length])) } catch { failures += 1 }
        }
        #expect(failures >= plain.count - 6)
    }

    @Test func truncatedCompressedInput() throws {
        let raw = try TransferFileWriter.serialize(T.androidMeasurement, compression: .cyface)
        do {
            _ = try TransferFileDecoder.decode(Array(raw[0..<50]))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.offset == 50)
            #expect(error.description.contains("raw deflate"))
        }
        for length in 0..<raw.count {
            #expect(throws: CyfaceError.self) { try TransferFileDecoder.decode(Array(raw[0..<length])) }
        }
    }

    @Test func corruptInputGivesErrorsNeverCrashes() throws {
        let raw = try TransferFileWriter.serialize(Self.richMeasurement(), compression: .cyface)
        let plain = try TransferFileWriter.serialize(Self.richMeasurement())
        var random = SplitMix64(seed: 99)
        var errors = 0
        for round in 0..<600 {
            var input = round.isMultiple(of: 2) ? raw : plain
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                input[Int.random(in: 2..<input.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
            do { _ = try TransferFileDecoder.decode(input) } catch { errors += 1 }
        }
        #expect(errors > 0)
        // Garbage after the compressed stream.
        do {
            _ = try TransferFileDecoder.decode(raw + [1, 2, 3])
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .compression)
            #expect(error.offset == raw.count)
        }
        // A wrong wire type for location_records.
        do {
            _ = try TransferFileDecoder.decode(T.hex("0003 800103 8801 00"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.offset == 5)
        }
        // Unknown event type.
        do {
            _ = try TransferFileDecoder.decode(T.hex("0003 800103 8a0100 aa01 04 0801 1063"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.offset == 13)
        }
        // Too short.
        #expect(throws: CyfaceError.self) { try TransferFileDecoder.decode([]) }
        #expect(throws: CyfaceError.self) { try TransferFileDecoder.decode([0]) }
    }

    @Test func metadataEventsAndAttachmentsAreReported() throws {
        let bytes = T.hex("0003 800103 8a0100 aa01 0a 0801 1a06") + Array("age=76".utf8) + T.hex("b201 03 800101")
        let file = try TransferFileDecoder.decode(bytes)
        #expect(file.metadataEvents == [CyfaceMetadataEvent(timestamp: 1, value: "age=76")])
        #expect(file.events.isEmpty)
        #expect(file.attachmentCount == 1)
    }

    @Test func writerChecksTheDeclaredSummary() throws {
        let body = try CyfaceBatch.encode([MotionSample(timestamp: 1, x: 1, y: 1, z: 1)], sensor: .accelerometer)
        var summary = CyfaceBatchSummary()
        summary.add(bodyByteCount: body.count + 1)
        var given = false
        let source = CyfaceSensorBatches(sensor: .accelerometer, summary: summary) {
            defer { given = true }
            return given ? nil : body
        }
        do {
            try TransferFileWriter.write(fixes: [Fix](), sensors: [source], events: [Event]()) { _ in }
            Issue.record("expected an error")
        } catch let error as CyfaceError {
            #expect(error.kind == .summaryMismatch)
        }
        let twice = [CyfaceSensorBatches(sensor: .gyroscope, bodies: []), CyfaceSensorBatches(sensor: .gyroscope, bodies: [])]
        #expect(throws: CyfaceError.self) {
            try TransferFileWriter.write(fixes: [Fix](), sensors: twice, events: [Event]()) { _ in }
        }
    }

    @Test func streamsManyBatchesWithBoundedChunks() throws {
        // 2 000 batches of 100 samples, generated on demand, never all in memory.
        let sample = (0..<100).map { MotionSample(timestamp: Int64($0), x: 0.5, y: -9.81, z: Double($0) / 100) }
        let body = try CyfaceBatch.encode(sample, sensor: .accelerometer)
        let summary = CyfaceBatchSummary(bodyByteCounts: repeatElement(body.count, count: 2_000))
        // What the SQL in CyfaceBatchSummary's documentation computes.
        let lengthSize = body.count < 128 ? 1 : body.count < 16384 ? 2 : 3
        #expect(
            summary
                == CyfaceBatchSummary(
                    batchCount: 2_000, bodyByteCount: 2_000 * body.count,
                    fieldContentByteCount: 2_000 * (1 + lengthSize + body.count)))
        var remaining = 2_000
        let source = CyfaceSensorBatches(sensor: .accelerometer, summary: summary) {
            guard remaining > 0 else { return nil }
            remaining -= 1
            return body
        }
        let inflater = try Inflater()
        var largestChunk = 0
        var plain: [UInt8] = []
        try TransferFileWriter.write(fixes: [Fix](), sensors: [source], events: [Event](), chunkSize: 4096) { chunk in
            largestChunk = max(largestChunk, chunk.count)
            try inflater.write(chunk) { plain += $0 }
        }
        try inflater.finish()
        #expect(largestChunk <= 4096)
        let file = try TransferFileDecoder.decodeUncompressed(plain)
        #expect(file.batches[.accelerometer]?.count == 2_000)
        #expect(file.batches[.accelerometer]?.last?.count == 100)
    }

    @Test func outputBeyondTheLimitIsRefusedAsABomb() throws {
        let raw = try TransferFileWriter.serialize(T.androidMeasurement, compression: .cyface)
        let size = T.androidVector.count
        #expect(try TransferFileDecoder.decode(raw, maximumSize: size).fixes.count == 3)
        for limit in [0, 1, size - 1] {
            #expect {
                try TransferFileDecoder.decode(raw, maximumSize: limit)
            } throws: { error in
                let error = error as? CyfaceError
                return error?.kind == .compression && error?.detail.contains("decompression bomb") == true
            }
        }
    }

    private func deflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let deflater = try Deflater()
        var out: [UInt8] = []
        try deflater.write(bytes) { out += $0 }
        try deflater.finish { out += $0 }
        return out
    }
}
