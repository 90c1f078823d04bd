import CaptureCore
import CaptureTestSupport
import CaptureTransfer
import Foundation
import Testing

/// The byte vectors of spec §1.10.
@Suite struct CyfaceVectorTests {
    typealias T = CyfaceTestSupport

    @Test func androidVectorIsExactly291Bytes() throws {
        let bytes = try TransferFileWriter.serialize(T.androidMeasurement)
        let expected = T.androidVector
        #expect(expected.count == 291)
        #expect(bytes.count == 291)
        for (index, (got, want)) in zip(bytes, expected).enumerated() where got != want {
            Issue.record("byte \(index): got \(String(format: "%02x", got)), expected \(String(format: "%02x", want))")
            break
        }
        #expect(bytes == expected)
    }

    @Test func androidVectorHasTheSpecSHA256() throws {
        let bytes = try TransferFileWriter.serialize(T.androidMeasurement)
        let sum = try Program.run("/usr/bin/sha256sum", [], input: bytes)
        #expect(sum.status == 0, "sha256sum failed: \(sum.stderr)")
        #expect(sum.stdout.hasPrefix("7edd017671f3021ff84836642a6e19c119fa5b50a754607334937d85d40867e3"))
    }

    @Test func androidVectorDeflatesTo97Bytes() throws {
        let compressed = try TransferFileWriter.serialize(T.androidMeasurement, compression: .cyface)
        #expect(compressed.count == 97)
        let (format, plain) = try TransferFileDecoder.decompress(compressed)
        #expect(format == .rawDeflate)
        #expect(plain == T.androidVector)
    }

    @Test func streamingWriterMatchesTheConvenience() throws {
        let measurement = T.androidMeasurement
        var sources: [CyfaceSensorBatches] = []
        for sensor in MotionSensor.allCases.reversed() {
            let body = try CyfaceBatch.encode(measurement.samples[sensor] ?? [], sensor: sensor)
            var summary = CyfaceBatchSummary()
            summary.add(bodyByteCount: body.count)
            var delivered = false
            sources.append(CyfaceSensorBatches(sensor: sensor, summary: summary) {
                defer { delivered = true }
                return delivered ? nil : body
            })
        }
        // A tiny chunk size exercises the buffering across many sink calls.
        var chunks: [[UInt8]] = []
        try TransferFileWriter.write(
            fixes: measurement.fixes, sensors: sources, events: [], compression: .none, chunkSize: 7
        ) { chunks.append($0) }
        #expect(chunks.allSatisfy { $0.count <= 7 })
        #expect(chunks.flatMap { $0 } == T.androidVector)
    }

    /// §1.10b: bare protobuf, format_version 2, one fix: 34 bytes.
    @Test func oneLocationVector() throws {
        let fix = Fix(
            timestamp: 1_621_582_427_000, latitude: 51.064590, longitude: 13.699045, horizontalAccuracy: 8.0,
            speed: 10.0)
        let body = try CyfaceLocations.encode([fix])
        var writer = ProtobufWriter()
        writer.writeVarintField(16, 2)
        writer.writeLengthDelimited(17, body)
        #expect(writer.bytes.count == 34)
        #expect(
            T.hexString(writer.bytes)
                == "8001028a011c0a06f0cdc1ddb15e12049cbcd9301a04ca9f880d2a02c00c3202d00f")
    }

    /// §1.10b: two fixes with deltas 1000/190/−700/−300/−1000: 44 bytes.
    @Test func twoLocationVectorSize() throws {
        let first = Fix(
            timestamp: 1_621_582_427_000, latitude: 51.064590, longitude: 13.699045, horizontalAccuracy: 8.0,
            speed: 10.0)
        let second = Fix(
            timestamp: 1_621_582_428_000, latitude: 51.064780, longitude: 13.698345, horizontalAccuracy: 5.0,
            speed: 0.0)
        let body = try CyfaceLocations.encode([first, second])
        var writer = ProtobufWriter()
        writer.writeVarintField(16, 2)
        writer.writeLengthDelimited(17, body)
        #expect(writer.bytes.count == 44)
        let decoded = try CyfaceLocations.decode(body[...])
        #expect(decoded.map(\.timestamp) == [1_621_582_427_000, 1_621_582_428_000])
        #expect(decoded[1].latitude == 51.06478)
        #expect(decoded[1].longitude == 13.698345)
        #expect(decoded[1].horizontalAccuracy == 5.0)
        #expect(decoded[1].speed == 0.0)
    }

    /// §1.10c: a modality change and a LIFECYCLE_START event.
    @Test func eventBytes() throws {
        let events = [
            Event(timestamp: 1_652_425_925_164, type: .modalityTypeChange, value: "BICYCLE"),
            Event(timestamp: 1_652_425_925_166, type: .lifecycleStart),
        ]
        let bytes = try TransferFileWriter.serialize(CyfaceMeasurement(events: events))
        let expected =
            T.hex("0003 800103 8a0100")
            + T.hex("aa01 12 08acc48ae28b30 1014 1a07") + Array("BICYCLE".utf8)
            + T.hex("aa01 09 08aec48ae28b30 1010")
        #expect(T.hexString(bytes) == T.hexString(expected))
        let decoded = try TransferFileDecoder.decode(bytes)
        #expect(decoded.events == events)
    }

    @Test func emptyMeasurementHasLocationRecords() throws {
        let bytes = try TransferFileWriter.serialize(CyfaceMeasurement())
        #expect(bytes == T.hex("0003 800103 8a0100"))
    }
}
