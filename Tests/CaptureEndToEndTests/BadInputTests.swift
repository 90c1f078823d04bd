import CaptureTestSupport
import Foundation
import Glibc
import Testing

// The rows of the README's "Bad input" table: every bad input gets one line on stderr, starting
// with "capture: ", a documented exit code, and leaves nothing behind (no measurement, no file).

/// Checks that `result` is a refusal: exit `status` and exactly one stderr line that starts with
/// `capture: ` and contains `message`.
func expectRefusal(
    _ result: CLI.Result, _ status: Int32, _ message: String, _ row: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == status, "\(row): exit \(result.status), stderr \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("capture: "), "\(row): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(
        result.stderr.hasSuffix("\n") && result.stderr.filter { $0 == "\n" || $0 == "\r" }.count == 1,
        "\(row): not one line: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains(message), "\(row): \(result.stderr)", sourceLocation: sourceLocation)
}

/// A temporary file (or directory) path, removed by `remove()`.
func scratch(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("capture-bad-\(UUID().uuidString)-\(name)").path
}

/// A named row with bytes to write and the expected stderr text.
struct BadFile: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var message: String

    init(_ name: String, _ text: String, _ message: String) {
        self.init(name, Array(text.utf8), message)
    }

    init(_ name: String, _ bytes: [UInt8], _ message: String) {
        self.name = name
        self.bytes = bytes
        self.message = message
    }

    var testDescription: String { name }

    /// Writes the bytes to a new temporary file and returns its path.
    func write() throws -> String {
        let path = scratch("input")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// An NMEA sentence with its checksum.
func nmea(_ body: String) -> String {
    "$\(body)*\(String(format: "%02X", body.utf8.reduce(UInt8(0), ^)))"
}

// MARK: - Malformed traces

@Suite struct BadTraceTests {
    static let header = "#capture-trace v1\n"

    static let rows: [BadFile] = [
        BadFile("empty file", "", ":1: expected '#capture-trace v1' as the first line (not a capture trace)\n"),
        BadFile(
            "missing header", "acc 1000 0.1 0.2 9.81\n",
            ":1: expected '#capture-trace v1' as the first line (not a capture trace), found 'acc 1000 0.1 0.2 9.81'\n"),
        BadFile("header only", header, ":1: expected at least one record\n"),
        BadFile("bad number", header + "acc 1000 0.1 zero 9.81\n", ":2: expected a number for the y axis (m/s²), found 'zero'\n"),
        BadFile("missing field", header + "acc 1000 0.1 0.2\n", ":2: expected a number for the z axis (m/s²)\n"),
        BadFile("extra field", header + "prs 1000 1013.2 hPa\n", ":2: expected the end of the line, found 'hPa'\n"),
        BadFile(
            "unknown kind", header + "tmp 1000 21.5\n",
            ":2: expected a record kind (acc, gyr, mag, prs, fix, start, pause, resume, modality, stop), found 'tmp'\n"),
        BadFile("NaN", header + "gyr 1000 nan 0 0\n", ":2: expected a number for the x axis (rad/s), found 'nan'\n"),
        BadFile("infinity", header + "mag 1000 0 0 -inf\n", ":2: expected a number for the z axis (µT), found '-inf'\n"),
        BadFile(
            "value beyond what the store holds", header + "acc 1000 1e300 0 0\n",
            ":2: expected a value the store can hold (motion within about ±10⁶ m/s² or rad/s, ±10⁷ µT)\n"),
        BadFile("latitude out of range", header + "fix 1000 91.5 13.7 - - - - -\n", ":2: expected a latitude between -90 and 90\n"),
        BadFile(
            "longitude out of range", header + "fix 1000 51.0 -180.5 - - - - -\n", ":2: expected a longitude between -180 and 180\n"),
        BadFile("pressure not positive", header + "prs 1000 0\n", ":2: expected a positive pressure in hPa\n"),
        BadFile("negative timestamp", header + "acc -1000 0 0 9.81\n", ":2: expected a timestamp in Unix milliseconds, found '-1000'\n"),
        BadFile(
            "timestamp in seconds with a fraction", header + "acc 1781424000.5 0 0 9.81\n",
            ":2: expected a timestamp in Unix milliseconds, found '1781424000.5'\n"),
        BadFile(
            "timestamp of 20 digits", header + "acc 12345678901234567890 0 0 9.81\n",
            ":2: expected a timestamp in Unix milliseconds, found '12345678901234567890'\n"),
        BadFile(
            "timestamps going backwards across a mark", header + "acc 5000 0 0 9.81\npause 6000\nresume 4000\n",
            ":4: expected a mark not earlier than the previous one (6000), found '4000'\n"),
        BadFile("pause while paused", header + "acc 1000 0 0 9.81\npause 2000\npause 3000\n", ":4: expected a legal lifecycle mark"),
        BadFile(
            "unknown modality", header + "start 1000 SPACESHIP\n",
            ":2: expected a modality (BICYCLE, EBike, CargoBike, ECargoBike, CAR, MOTORBIKE, BUS, TRAIN, WALKING, UNKNOWN), found 'SPACESHIP'\n"),
        BadFile("record after stop", header + "acc 1000 0 0 9.81\nstop 2000\nacc 3000 0 0 9.81\n", ":4: expected nothing after the stop mark\n"),
        BadFile(
            "binary garbage", Array(header.utf8) + [0x00, 0x1B, 0x5B, 0x32, 0x4A, 0xFF, 0xFE, 0x0A],
            ":2: expected a record kind (acc, gyr, mag, prs, fix, start, pause, resume, modality, stop), found '\\u{0}\\u{1b}[2J\u{FFFD}\u{FFFD}'\n"),
        BadFile(
            "a line of 2 MiB", header + "acc 1000 0 0 9.81\n" + String(repeating: "9", count: 2 << 20) + "\n",
            ":3: expected a line shorter than 1 MiB\n"),
    ]

    @Test(arguments: rows)
    func malformedTraceIsRefusedAndNothingIsKept(_ row: BadFile) throws {
        let cli = CLI()
        let path = try row.write()
        defer { unlink(path) }
        let result = try cli.run(["replay", path])
        expectRefusal(result, 65, path + row.message, row.name)
        if row.message.hasSuffix("\n") { #expect(result.stderr == "capture: \(path)\(row.message)", "\(row.name)") }
        #expect(try cli.databaseDump() == "", "\(row.name): something was stored")
    }

    @Test func crlfLineEndingsAndBackwardSamplesAreAccepted() throws {
        let cli = CLI()
        let lines = [
            "#capture-trace v1", "start 1000 CAR", "acc 1000 0.1 0.2 9.81", "acc 900 0.1 0.2 9.81",
            "fix 1000 51.05 13.73 120 5 7 4 90", "fix 2000 51.0501 13.73 120 5 7 4 90", "stop 3000",
        ]
        let path = try BadFile("crlf", lines.joined(separator: "\r\n") + "\r\n", "").write()
        defer { unlink(path) }
        let result = try cli.run(["replay", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let counts = try cli.json(["show", "1"])["counts"] as? [String: Any] ?? [:]
        #expect(counts["accelerometer"] as? Int == 2)
        #expect(counts["locations"] as? Int == 2)
    }
}

// MARK: - Garbage NMEA, gpsd JSON and GPX

@Suite struct BadGNSSLogTests {
    static let goodEpochs = (0..<3).flatMap { second in
        [
            nmea("GPRMC,12000\(second).00,A,5103.0240,N,01344.2380,E,5.0,90.0,221126,,,A"),
            nmea("GPGGA,12000\(second).00,5103.0240,N,01344.2380,E,1,08,0.9,120.0,M,45.0,M,,"),
        ]
    }

    static let rows: [BadFile] = [
        BadFile(
            "NMEA with bad checksums only",
            goodEpochs.map { String($0.dropLast(2)) + "00" }.joined(separator: "\n") + "\n",
            ":1: expected at least one valid fix (this NMEA log has none)\n"),
        BadFile(
            "NMEA truncated sentences, binary noise, absurd values",
            Array(
                ([
                    "$GPRMC,120000.00,A,5103.02", String(goodEpochs[0].prefix(30)),
                    nmea("GPRMC,120001.00,A,9903.0240,N,01344.2380,E,5.0,90.0,221126,,,A"),
                    nmea("GPRMC,996199.00,A,5103.0240,N,01344.2380,E,5.0,90.0,991399,,,A"),
                    nmea("GPGGA,120002.00,5103.0240,N,19944.2380,E,1,08,0.9,120.0,M,45.0,M,,"),
                ].joined(separator: "\n") + "\n").utf8) + [0xFF, 0x00, 0x24, 0x1B, 0x0A],
            ":1: expected at least one valid fix (this NMEA log has none)\n"),
        BadFile(
            "gpsd JSON garbage", "{\"class\":\"TPV\",\"mode\":3,\n{\"class\":\"TPV\",\"lat\":\"north\"}\n"
                + "{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-11-22T12:00:00.000Z\",\"lat\":1000.0,\"lon\":13.7}\n[1,2]\n",
            ":1: expected at least one valid fix (this gpsd JSON log has none)\n"),
        BadFile("GPX cut off", "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"51\" lon=\"13\">", "expected well-formed GPX"),
    ]

    @Test(arguments: rows)
    func garbageLogIsRefusedAndNothingIsKept(_ row: BadFile) throws {
        let cli = CLI()
        let path = try row.write()
        defer { unlink(path) }
        let result = try cli.run(["replay", path])
        expectRefusal(result, 65, row.message.hasSuffix("\n") ? path + row.message : row.message, row.name)
        #expect(try cli.databaseDump() == "", "\(row.name): something was stored")
    }

    @Test func garbageBetweenGoodSentencesIsSkipped() throws {
        let cli = CLI()
        var lines: [String] = []
        for sentence in Self.goodEpochs {
            lines += [sentence, "$GPRMC,garbage*00", "\u{1}\u{2}noise", String(sentence.prefix(20))]
        }
        let path = try BadFile("mixed", lines.joined(separator: "\r\n") + "\r\n", "").write()
        defer { unlink(path) }
        let result = try cli.run(["replay", path])
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try cli.json(["show", "1"])["counts"] as? [String: Any] ?? [:]
        #expect(counts["locations"] as? Int == 3)
    }

    @Test func liveNMEASourceCountsGarbageAsLost() throws {
        let cli = CLI()
        let path = try BadFile("nmea", Array((Self.goodEpochs.map { String($0.dropLast(2)) + "00" }.joined(separator: "\n") + "\n").utf8) + [0x00, 0xFF, 0x0A], "").write()
        defer { unlink(path) }
        let started = try cli.run(["start", "--source", "nmea:" + path])
        #expect(started.status == 0, "\(started.stderr)")
        var source: [String: Any] = [:]
        #expect(
            try cli.waitFor(20) {
                let status = try cli.json(["status"])
                source = ((status["recorder"] as? [String: Any])?["sources"] as? [[String: Any]])?.first ?? [:]
                return source["state"] as? String == "ended"
            }, "\(source)")
        #expect(source["samples"] as? Int == 0, "\(source)")
        #expect((source["lost"] as? Int ?? 0) >= 6, "\(source)")
        #expect(try cli.run(["stop"]).status == 0)
        let counts = try cli.json(["show", "1"])["counts"] as? [String: Any] ?? [:]
        #expect(counts["locations"] as? Int == 0)
    }
}

extension Program.Result {
    var cliResult: CLI.Result { CLI.Result(status: status, stdout: stdout, stderr: stderr) }
}
