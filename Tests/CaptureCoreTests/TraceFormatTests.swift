import CaptureCore
import Testing

@Suite struct TraceFormatTests {
    /// Parses lines (the magic line is prepended) and returns the records or the error.
    func parse(_ lines: [String]) throws(TraceError) -> [TraceRecord] {
        var parser = TraceParser()
        var records: [TraceRecord] = []
        for (index, line) in ([TraceFormat.magic] + lines).enumerated() {
            var bytes = Array(line.utf8)
            let record = try bytes.withUnsafeMutableBufferPointer { buffer throws(TraceError) in
                try parser.parse(line: UnsafeBufferPointer(buffer), number: index + 1)
            }
            if let record { records.append(record) }
        }
        return records
    }

    func error(_ lines: [String]) -> TraceError? {
        do {
            _ = try parse(lines)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyKindOfRecord() throws {
        let records = try parse([
            "# a comment", "", "start 100 bicycle", "acc 100 0.123 -0.045 9.807", "gyr 103\t0.0012 -3e-4 0.0101",
            "mag 107 19.25 -2.1 -44.8", "prs 100 1003.214", "fix 100 51.0504 13.7373 165.2 4.1 6 5.12 87.4",
            "fix 101 -33.5 -70.25 - - - - -", "pause 200", "resume 300\r", "modality 400 WALKING", "stop 500",
        ])
        #expect(
            records == [
                .mark(.start(.bicycle), at: 100),
                .sample(.motion(.accelerometer, MotionSample(timestamp: 100, x: 0.123, y: -0.045, z: 9.807))),
                .sample(.motion(.gyroscope, MotionSample(timestamp: 103, x: 0.0012, y: -0.0003, z: 0.0101))),
                .sample(.motion(.magnetometer, MotionSample(timestamp: 107, x: 19.25, y: -2.1, z: -44.8))),
                .sample(.pressure(PressureSample(timestamp: 100, hectopascals: 1003.214))),
                .sample(
                    .fix(
                        Fix(
                            timestamp: 100, latitude: 51.0504, longitude: 13.7373, altitude: 165.2,
                            horizontalAccuracy: 4.1, verticalAccuracy: 6, speed: 5.12, course: 87.4))),
                .sample(.fix(Fix(timestamp: 101, latitude: -33.5, longitude: -70.25))),
                .mark(.pause, at: 200), .mark(.resume, at: 300), .mark(.modality(.walking), at: 400), .mark(.stop, at: 500),
            ])
    }

    @Test func theMagicLineIsRequired() {
        var parser = TraceParser()
        let bytes = Array("acc 1 0 0 0".utf8)
        do {
            _ = try bytes.withUnsafeBufferPointer { buffer throws(TraceError) in try parser.parse(line: buffer, number: 1) }
            Issue.record("a trace without the magic line was accepted")
        } catch {
            #expect(error.line == 1)
            #expect(error.expected.contains("not a capture trace"))
        }
    }

    @Test(arguments: [
        ("acc 1 0 0", 2, "a number for the z axis (m/s²)", ""),
        ("acc 1 0 x 0", 2, "a number for the y axis (m/s²)", "x"),
        ("acc -1 0 0 0", 2, "a timestamp in Unix milliseconds", "-1"),
        ("acc 1.5 0 0 0", 2, "a timestamp in Unix milliseconds", "1.5"),
        ("acc 1 0 0 0 7", 2, "the end of the line", "7"),
        ("gyr 1 nan 0 0", 2, "a number for the x axis (rad/s)", "nan"),
        ("mag 1 inf 0 0", 2, "a number for the x axis (µT)", "inf"),
        ("prs 1 -3", 2, "a positive pressure in hPa", ""),
        ("fix 1 91 0", 2, "a latitude between -90 and 90", ""),
        ("fix 1 0 181", 2, "a longitude between -180 and 180", ""),
        ("fix 1 0 0 1 2 3 4", 2, "the course in degrees or '-'", ""),
        ("fix 1 0 0 1 2 3 4 x", 2, "the course in degrees or '-'", "x"),
        ("modality 5 skateboard", 2, "a modality (\(Modality.spellings))", "skateboard"),
        ("start 5", 2, "a modality (\(Modality.spellings))", ""),
        ("pause", 2, "a timestamp in Unix milliseconds", ""),
        ("speed 1 2", 2, "a record kind (acc, gyr, mag, prs, fix, start, pause, resume, modality, stop)", "speed"),
    ])
    func malformedLinesNameTheLineAndWhatWasExpected(line: String, number: Int, expected: String, found: String) {
        #expect(error([line]) == TraceError(line: number, expected: expected, found: found))
    }

    @Test func writtenLinesParseBackToTheSameValues() throws {
        let records: [TraceRecord] = [
            .mark(.start(.eCargoBike), at: 1),
            .sample(.motion(.accelerometer, MotionSample(timestamp: 2, x: 0.1 + 0.2, y: -1e-7, z: 9.80665))),
            .sample(.pressure(PressureSample(timestamp: 3, hectopascals: 1013.25))),
            .sample(.fix(Fix(timestamp: 4, latitude: 51.123456789, longitude: -0.5, altitude: nil, speed: 3.25))),
            .mark(.pause, at: 5), .mark(.resume, at: 6), .mark(.modality(.bus), at: 7), .mark(.stop, at: 8),
        ]
        let lines = records.map { String(TraceWriter.line($0).dropLast()) }
        #expect(try parse(lines) == records)
    }

    @Test(arguments: [
        ("0", 0.0), ("-0.5", -0.5), ("+2", 2.0), ("9.807", 9.807), ("1e3", 1000.0), ("1.5E-3", 0.0015), (".5", 0.5),
        ("5.", 5.0), ("0.000000000000000000000000123", 1.23e-25), ("12345678901234567890123", 1.2345678901234568e22),
        ("0.49999999999999994", 0.49999999999999994),
    ])
    func decimalsParseExactly(text: String, value: Double) {
        var bytes = Array(text.utf8)
        let parsed = bytes.withUnsafeMutableBufferPointer { DecimalParser.parse(UnsafeBufferPointer($0)) }
        #expect(parsed == value)
    }

    @Test(arguments: ["", "-", ".", "e5", "1e", "1x", "0x10", "nan", "inf", "1..2", "--1", "1e+"])
    func nonNumbersAreRejected(text: String) {
        var bytes = Array(text.utf8)
        #expect(bytes.withUnsafeMutableBufferPointer { DecimalParser.parse(UnsafeBufferPointer($0)) } == nil)
    }
}
