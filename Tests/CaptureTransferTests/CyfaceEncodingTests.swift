import CaptureCore
import Testing

@testable import CaptureTransfer

@Suite struct CyfaceEncodingTests {
    typealias T = CyfaceTestSupport

    @Test(arguments: [
        (-2.5, Int64(-2)), (2.5, 3), (0.49999999999999994, 0), (-0.5, 0), (0.5, 1), (-1.5, -1), (1.4999999999999998, 1),
        (-0.49999999999999994, 0), (-0.0, 0), (4_503_599_627_370_495.5, 4_503_599_627_370_496),
        (-4_503_599_627_370_495.5, -4_503_599_627_370_495), (1e18, 1_000_000_000_000_000_000),
    ])
    func javaRound(_ input: Double, _ expected: Int64) throws {
        #expect(try JavaRound.round(input) == expected)
    }

    @Test func javaRoundRejectsNaNInfinityAndOverflow() {
        #expect(throws: CyfaceError.self) { try JavaRound.round(.nan) }
        #expect(throws: CyfaceError.self) { try JavaRound.round(.infinity) }
        #expect(throws: CyfaceError.self) { try JavaRound.round(9.3e18) }
        #expect(throws: CyfaceError.self) { try JavaRound.round(-9.3e18) }
        #expect((try? JavaRound.round(-9_223_372_036_854_775_808.0)) == Int64.min)
    }

    @Test func scaledValuesOutside32BitsThrow() {
        do {
            _ = try JavaRound.scaledInt32(2_147_483.648, by: 1000, what: "x")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .valueOutOfRange)
        }
        #expect((try? JavaRound.scaledInt32(2_147_483.647, by: 1000, what: "x")) == Int64(Int32.max))
    }

    @Test func zigZagAndVarints() {
        #expect(ProtobufWriter.zigZag(Int32(-1)) == 1)
        #expect(ProtobufWriter.zigZag(Int32(1)) == 2)
        #expect(ProtobufWriter.zigZag(Int32.min) == UInt32.max)
        #expect(ProtobufWriter.zigZag(Int64.min) == UInt64.max)
        var writer = ProtobufWriter()
        writer.writePackedSInt32(2, [1000, -1, 0])
        #expect(writer.bytes == T.hex("1204 d00f 01 00"))
        #expect(ProtobufWriter.varintSize(0) == 1)
        #expect(ProtobufWriter.varintSize(127) == 1)
        #expect(ProtobufWriter.varintSize(128) == 2)
        #expect(ProtobufWriter.varintSize(UInt64.max) == 10)
        for value: UInt64 in [0, 1, 127, 128, 300, 1 << 35, UInt64.max] {
            var w = ProtobufWriter()
            w.writeVarint(value)
            #expect(w.bytes.count == ProtobufWriter.varintSize(value))
            var reader = ProtobufReader(w.bytes[...], context: "test")
            #expect((try? reader.readVarint()) == value)
            #expect(ProtobufWriter.unZigZag(ProtobufWriter.zigZag(Int64(bitPattern: value))) == Int64(bitPattern: value))
        }
    }

    @Test func batchScalesPerSensorAndRoundsLikeJava() throws {
        // 0.0625 and 0.125 are exact binary fractions, so × 1000 / × 100 give exact halves.
        let sample = [MotionSample(timestamp: 5, x: 1.0, y: -0.0625, z: 0.0625)]
        // ts 5 → 0a; x 1000 → d00f; y −62.5 → −62 → 7b; z 62.5 → 63 → 7e.
        #expect(try CyfaceBatch.encode(sample, sensor: .accelerometer) == T.hex("0a010a 1202d00f 1a017b 22017e"))
        let acc = try CyfaceBatch.decode(try CyfaceBatch.encode(sample, sensor: .accelerometer), sensor: .accelerometer)
        #expect(acc == [MotionSample(timestamp: 5, x: 1.0, y: -0.062, z: 0.063)])
        let magSample = [MotionSample(timestamp: 5, x: 1.0, y: -0.125, z: 0.125)]
        let mag = try CyfaceBatch.decode(try CyfaceBatch.encode(magSample, sensor: .magnetometer), sensor: .magnetometer)
        #expect(mag == [MotionSample(timestamp: 5, x: 1.0, y: -0.12, z: 0.13)])
        #expect(try CyfaceBatch.encode([MotionSample](), sensor: .gyroscope).isEmpty)
    }

    @Test func batchOverflowIsAnErrorNotAWrap() {
        let tooBig = [MotionSample(timestamp: 0, x: 3_000_000, y: 0, z: 0)]
        #expect(throws: CyfaceError.self) { try CyfaceBatch.encode(tooBig, sensor: .accelerometer) }
        // Each value fits 32 bits after scaling, but the delta between them does not.
        let bigDelta = [
            MotionSample(timestamp: 0, x: 0, y: 2_000_000, z: 0),
            MotionSample(timestamp: 1, x: 0, y: -2_000_000, z: 0),
        ]
        do {
            _ = try CyfaceBatch.encode(bigDelta, sensor: .accelerometer)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .valueOutOfRange)
            #expect(error.detail.contains("sample 1"))
        }
        let timeOverflow = [
            MotionSample(timestamp: .min, x: 0, y: 0, z: 0), MotionSample(timestamp: .max, x: 0, y: 0, z: 0),
        ]
        #expect(throws: CyfaceError.self) { try CyfaceBatch.encode(timeOverflow, sensor: .gyroscope) }
        let notANumber = [MotionSample(timestamp: 0, x: .nan, y: 0, z: 0)]
        do {
            _ = try CyfaceBatch.encode(notANumber, sensor: .magnetometer)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .notFinite)
        }
        let farFix = [Fix(timestamp: 0, latitude: 3000, longitude: 0)]
        #expect(throws: CyfaceError.self) { try CyfaceLocations.encode(farFix) }
        #expect(throws: CyfaceError.self) { try CyfaceEvents.encode(Event(timestamp: -1, type: .lifecycleStop)) }
    }

    @Test func batchRoundTripWithinPrecision() throws {
        var random = SplitMix64(seed: 42)
        for sensor in MotionSensor.allCases {
            let scale = CyfaceBatch.scale(for: sensor)
            var time: Int64 = 1_781_424_000_000
            var samples: [MotionSample] = []
            for _ in 0..<CyfaceBatch.maximumSampleCount {
                time += Int64.random(in: -5...20, using: &random)
                samples.append(
                    MotionSample(
                        timestamp: time, x: .random(in: -80...80, using: &random),
                        y: .random(in: -80...80, using: &random), z: .random(in: -80...80, using: &random)))
            }
            let decoded = try CyfaceBatch.decode(try CyfaceBatch.encode(samples, sensor: sensor), sensor: sensor)
            #expect(decoded.count == samples.count)
            for (a, b) in zip(samples, decoded) {
                #expect(a.timestamp == b.timestamp)
                #expect(abs(a.x - b.x) <= 0.5 / scale + 1e-12)
                #expect(abs(a.y - b.y) <= 0.5 / scale + 1e-12)
                #expect(abs(a.z - b.z) <= 0.5 / scale + 1e-12)
            }
        }
    }

    @Test func batchDecodeRejectsCorruptBytesWithoutTrapping() throws {
        let samples = (0..<50).map { MotionSample(timestamp: Int64($0) * 10, x: Double($0), y: -1, z: 9.81) }
        let body = try CyfaceBatch.encode(samples, sensor: .accelerometer)
        for length in 0..<body.count {
            // Any prefix either decodes (cut exactly between fields) or throws; it must not trap.
            _ = try? CyfaceBatch.decode(Array(body[0..<length]), sensor: .accelerometer)
        }
        #expect(throws: CyfaceError.self) { try CyfaceBatch.decode(Array(body.dropLast()), sensor: .accelerometer) }
        var random = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            var corrupt = body
            for _ in 0..<3 { corrupt[Int.random(in: 0..<corrupt.count, using: &random)] = .random(in: 0...255, using: &random) }
            _ = try? CyfaceBatch.decode(corrupt, sensor: .accelerometer)
        }
        // Columns of unequal length.
        do {
            _ = try CyfaceBatch.decode(T.hex("0a0102 120102"), sensor: .accelerometer)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .malformed)
        }
        // A sint32 value wider than 32 bits.
        #expect(throws: CyfaceError.self) {
            try CyfaceBatch.decode(T.hex("0a0102 1206ffffffff1f 1a0100 220100"), sensor: .accelerometer)
        }
    }

    @Test func locationsUseNilAsZeroAndOneDeltaState() throws {
        let fixes = [
            Fix(timestamp: 1000, latitude: 51.05, longitude: 13.73, horizontalAccuracy: 13.0, speed: nil),
            Fix(timestamp: 2000, latitude: 51.0500005, longitude: 13.73, horizontalAccuracy: 12.5, speed: -1),
            Fix(timestamp: 3000, latitude: 51.05, longitude: 13.73, horizontalAccuracy: 12.0, speed: 2),
        ]
        let body = try CyfaceLocations.encode(fixes)
        let decoded = try CyfaceLocations.decode(body[...])
        #expect(decoded.map(\.horizontalAccuracy) == [13.0, 12.5, 12.0])
        #expect(decoded.map(\.speed) == [0, -1, 2])
        // 51.0500005 × 10⁶ = 51050000.5 rounds half up.
        #expect(decoded.map(\.latitude) == [51.05, 51.050001, 51.05])
        // accuracy column: 1300, −50, −50 (spec §1.2).
        var writer = ProtobufWriter()
        writer.writePackedSInt32(5, [1300, -50, -50])
        #expect(T.hexString(body).contains(T.hexString(writer.bytes)))
    }

    @Test func decodesElevationsWhenPresent() throws {
        // ts [1, 0], lat [0, 0], lon [0, 0], elevation [is_null, 48000 cm].
        let body = T.hex("0a020200 12020000 1a020000 2202 1001 2204 0880ee05")
        let fixes = try CyfaceLocations.decode(body[...])
        #expect(fixes.map(\.altitude) == [nil, 480.0])
        #expect(fixes.map(\.horizontalAccuracy) == [nil, nil])
    }
}
