import CaptureCore
import CaptureTransfer
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

// MARK: - Truncated and corrupt transfer files

@Suite struct BadTransferFileTests {
    /// A real transfer file: a short ride replayed and exported in a data directory of its own.
    static let valid: [UInt8] = {
        let cli = CLI()
        let trace = scratch("ride.trace")
        defer { unlink(trace) }
        guard (try? shortTrace(fixes: 30).write(toFile: trace, atomically: true, encoding: .utf8)) != nil,
            (try? cli.run(["replay", trace]))?.status == 0,
            let result = try? Program.run(CLI.executable, ["export", "1", "--format", "cyface", "--data-dir", cli.dataDirectory]),
            result.status == 0
        else { return [] }
        return result.stdoutBytes
    }()

    static func flipped(_ bytes: [UInt8], at fraction: Double) -> [UInt8] {
        var copy = bytes
        guard !copy.isEmpty else { return copy }
        copy[Int(Double(copy.count) * fraction)] ^= 0x5A
        return copy
    }

    /// `00 03 || Measurement` uncompressed.
    static func plain(_ measurement: CyfaceMeasurement) -> [UInt8] {
        (try? TransferFileWriter.serialize(measurement)) ?? []
    }

    static var rows: [BadFile] {
        let file = valid
        let base = "not a Cyface v3 transfer file: "
        return [
            BadFile("empty file", [], base + "input of 0 bytes is too short for a transfer file"),
            BadFile("truncated to half", Array(file.prefix(file.count / 2)), base + "the raw deflate stream ends before its end marker"),
            BadFile("truncated to 10 bytes", Array(file.prefix(10)), base + "the raw deflate stream ends before its end marker"),
            BadFile("one byte flipped", flipped(file, at: 0.3), base),
            BadFile("trailing garbage", file + Array("garbage".utf8), base + "7 bytes follow the end of the compressed stream"),
            BadFile(
                "format version 1 header", [0x00, 0x01, 0x80, 0x01, 0x01],
                base + "header says format v1 (legacy big-endian binary), which is not supported; only v3 is"),
            BadFile(
                "format version 2 in the message", [0x80, 0x01, 0x02],
                base + "format_version field says format v2 (unsigned timestamps), which is not supported; only v3 is"),
            BadFile(
                "a latitude of 500°",
                plain(CyfaceMeasurement(fixes: [Fix(timestamp: 1_000, latitude: 500, longitude: 13), Fix(timestamp: 2_000, latitude: 51, longitude: 13)])),
                "the fix at 1000 has latitude 500.0, longitude 13.0: not a position on Earth"),
            BadFile("a valid but empty measurement", plain(CyfaceMeasurement()), "the file holds no fixes, samples or events: nothing to import"),
            BadFile(
                "RESUME without PAUSE",
                plain(
                    CyfaceMeasurement(
                        fixes: [Fix(timestamp: 1_000, latitude: 51, longitude: 13)],
                        events: [Event(timestamp: 1_000, type: .lifecycleStart), Event(timestamp: 2_000, type: .lifecycleResume)])),
                "invalid lifecycle events: LIFECYCLE_RESUME at 2000 without a preceding LIFECYCLE_PAUSE"),
        ]
    }

    @Test(arguments: rows)
    func corruptTransferFileIsRefusedAndNothingIsStored(_ row: BadFile) throws {
        try #require(!Self.valid.isEmpty, "could not make a transfer file to damage")
        let cli = CLI()
        let path = try row.write()
        defer { unlink(path) }
        let result = try cli.run(["import", path])
        expectRefusal(result, 65, "\(path): \(row.message)", row.name)
        #expect(try cli.databaseDump() == "", "\(row.name): something was stored")
    }

    @Test func decompressionBombIsRefusedBeforeItFillsMemory() throws {
        // 300 MiB of zeros deflate to about 300 kB.
        let deflater = try Deflater(level: 9)
        var bomb: [UInt8] = []
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<300 { try deflater.write(zeros) { bomb += $0 } }
        try deflater.finish { bomb += $0 }
        let cli = CLI()
        let path = try BadFile("bomb", bomb, "").write()
        defer { unlink(path) }
        let result = try cli.run(["import", path])
        expectRefusal(result, 65, "the data decompresses to more than 268435456 bytes", "bomb")
        #expect(try cli.databaseDump() == "")
    }

    @Test(arguments: ["/dev/zero", "directory", "missing"])
    func notAFileIsRefused(_ kind: String) throws {
        let cli = CLI()
        let path = kind == "/dev/zero" ? kind : scratch(kind)
        if kind == "directory" { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        defer { if kind == "directory" { rmdir(path) } }
        let result = try cli.run(["import", path])
        if kind == "/dev/zero" {
            expectRefusal(result, 65, "/dev/zero is not a regular file; import a .ccyf file", kind)
        } else {
            expectRefusal(result, 66, "no such file: \(path)", kind)
        }
        #expect(try cli.databaseDump() == "")
    }

    @Test func sameRideTwiceIsRefusedUnlessAgain() throws {
        try #require(!Self.valid.isEmpty, "could not make a transfer file to import")
        let cli = CLI()
        let path = try BadFile("ride", Self.valid, "").write()
        defer { unlink(path) }
        let first = try cli.run(["import", path])
        #expect(first.status == 0 && first.stdout == "1\n", "\(first.stderr)")
        let stored = try cli.databaseDump()
        let second = try cli.run(["import", path])
        expectRefusal(
            second, 65,
            "\(path) is already stored as measurement 1; nothing imported (`capture show 1`); "
                + "`capture import --again` stores it once more on purpose", "the same file again")
        #expect(try cli.databaseDump() == stored, "a refused import stored something")
        let again = try cli.run(["import", "--again", path])
        #expect(again.status == 0 && again.stdout == "2\n", "\(again.stderr)")
    }
}

// MARK: - Odd sysfs values

@Suite struct BadSysfsTests {
    /// A fake root with one polled accelerometer `iio:device0` with `files` on top of sane ones
    /// (written exactly, without sysfs's trailing newline; `nil` leaves a file out).
    static func root(_ files: [String: String?]) throws -> FakeSysfs {
        let sysfs = FakeSysfs(prefix: "capture-bad-sysfs")
        var all: [String: String?] = [
            "name": "oddaccel", "in_accel_x_raw": "1", "in_accel_y_raw": "2", "in_accel_z_raw": "981",
            "in_accel_scale": "0.01",
        ]
        for (name, text) in files { all[name] = text }
        sysfs.write("iio:device0", all.compactMapValues { $0 }, terminator: "")
        return sysfs
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var files: [String: String?]
        var device = "iio:device0"
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "non-numeric scale", files: ["in_accel_scale": "fast\n"], status: 65, message: "iio:device0: "),
        Row(name: "empty scale file", files: ["in_accel_scale": ""], status: 65, message: "iio:device0: "),
        Row(
            name: "no channels at all",
            files: ["in_accel_x_raw": nil, "in_accel_y_raw": nil, "in_accel_z_raw": nil, "in_accel_scale": nil], status: 64,
            message: "iio:device0 (oddaccel) has no accelerometer, gyroscope, magnetometer or pressure channel"),
        Row(name: "missing device", files: [:], device: "iio:device7", status: 66, message: "no IIO device iio:device7 under "),
        Row(
            name: "unreadable scan type",
            files: [
                "buffer0/enable": "0", "buffer0/in_accel_x_en": "0", "buffer0/in_accel_x_index": "0",
                "buffer0/in_accel_y_en": "0", "buffer0/in_accel_y_index": "1", "buffer0/in_accel_z_en": "0",
                "buffer0/in_accel_z_index": "2", "buffer0/in_accel_type": "le:s16/sixteen>>0",
            ], status: 65, message: "iio:device0: "),
    ]

    @Test(arguments: rows)
    func oddDeviceIsRefusedBeforeAnythingStarts(_ row: Row) throws {
        let sysfs = try Self.root(row.files)
        defer { sysfs.remove() }
        let root = sysfs.path
        if row.name == "unreadable scan type" { sysfs.makeNode("iio:device0") }
        let cli = CLI()
        let result = try cli.run(["start", "--sysfs-root", root, "--source", "iio:\(row.device)"])
        expectRefusal(result, row.status, row.message, row.name)
        #expect(cli.recorderPID == nil, "\(row.name): a recorder was started")
        #expect(try cli.databaseDump() == "", "\(row.name): something was stored")
    }

    @Test(arguments: ["-5", "abc", "1e308", ""])
    func absurdSamplingFrequencyIsIgnored(_ value: String) throws {
        let sysfs = try Self.root(["sampling_frequency": value + "\n", "sampling_frequency_available": "fast slow\n"])
        defer { sysfs.remove() }
        let root = sysfs.path
        let cli = CLI()
        let result = try cli.run(["sensors", "--json", "--sysfs-root", root, "--gpsd", "127.0.0.1:1"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        let device = (json["iio"] as? [[String: Any]])?.first ?? [:]
        #expect(device["id"] as? String == "iio:device0")
        #expect(device["currentRate"] == nil, "\(device)")
    }

    @Test func deviceDisappearingFailsItsSourceAndKeepsWhatWasCaptured() throws {
        let sysfs = try Self.root([:])
        defer { sysfs.remove() }
        let root = sysfs.path
        let cli = CLI()
        let started = try cli.run(["start", "--sysfs-root", root, "--source", "iio:iio:device0", "--rate", "50", "--flush-interval", "0.1"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try cli.waitForCommitted(5))
        try FileManager.default.removeItem(atPath: sysfs.deviceDirectory("iio:device0"))
        var source: [String: Any] = [:]
        #expect(
            try cli.waitFor(10) {
                let status = try cli.json(["status"])
                source = ((status["recorder"] as? [String: Any])?["sources"] as? [[String: Any]])?.first ?? [:]
                return source["state"] as? String == "failed"
            }, "\(source)")
        #expect((source["error"] as? String)?.contains("the device vanished") == true, "\(source)")
        #expect(try cli.run(["status"]).stdout.contains("sources failed: 1 of 1 (nothing more is recorded)"))
        #expect(try cli.run(["stop"]).status == 0)
        let counts = try cli.json(["show", "1"])["counts"] as? [String: Any] ?? [:]
        #expect((counts["accelerometer"] as? Int ?? 0) >= 5)
    }
}

// MARK: - Hostile collectors

@Suite struct HostileCollectorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var replies: [HostileCollector.Reply]
        var status: Int32
        /// In the measurement's result line on stdout.
        var result: String
        /// The stored upload state afterwards.
        var state: String
        var testDescription: String { name }
    }

    static let session = "Location: http://127.0.0.1:1/never-used"

    static let rows: [Row] = {
        typealias H = HostileCollector
        let open = { (port: String) in H.answer(201, [port]) }
        return [
            Row(name: "401", replies: [H.answer(401)], status: 77, result: "unauthorized (HTTP 401)", state: "uploading"),
            // 403 is retried within the budget (§2.10: the collector answers it while unavailable).
            Row(name: "403", replies: [H.answer(403, body: "forbidden")], status: 75, result: "failed (gave up after ", state: "failed"),
            Row(name: "409", replies: [H.answer(409)], status: 0, result: "uploaded (the collector already had it)", state: "uploaded"),
            Row(name: "412", replies: [H.answer(412, body: "too short")], status: 0, result: "skipped (too short)", state: "skipped"),
            Row(name: "413", replies: [H.answer(413)], status: 75, result: "failed (pre-request: HTTP 413)", state: "failed"),
            Row(name: "422", replies: [H.answer(422, body: "bad metadata")], status: 75, result: "failed (pre-request: HTTP 422: bad metadata)", state: "failed"),
            Row(name: "500 forever", replies: [H.answer(500)], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "garbage status line", replies: [.raw("HTTP/1.1 abc\r\n\r\n")], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "not HTTP at all", replies: [.raw("SSH-2.0-OpenSSH_9.6\r\n")], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "connection reset", replies: [.reset], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "no answer", replies: [.silent], status: 75, result: "failed (gave up after", state: "failed"),
            Row(
                name: "huge headers", replies: [H.answer(201, ["X-Junk: " + String(repeating: "j", count: 300_000)])], status: 75,
                result: "failed (gave up after", state: "failed"),
            Row(
                name: "201 without Location", replies: [H.answer(201)], status: 75,
                result: "failed (the collector opened a session without a usable Location header", state: "failed"),
            Row(
                name: "Location not a URL", replies: [H.answer(201, ["Location: ftp://127.0.0.1/x"])], status: 75,
                result: "failed (the collector opened a session without a usable Location header", state: "failed"),
            Row(
                name: "redirect", replies: [H.answer(301, ["Location: http://127.0.0.1:1/elsewhere"])], status: 75,
                result: "failed (pre-request: HTTP 301)", state: "failed"),
            Row(
                name: "308 with an unreadable Range, forever", replies: [open("Location: /api/v4/s/1"), H.answer(308, ["Range: bytes=abc"])],
                status: 75, result: "failed (gave up after", state: "failed"),
            Row(
                name: "308 with a Range beyond the file", replies: [open("Location: /api/v4/s/1"), H.answer(308, ["Range: bytes=0-99999999"])],
                status: 75, result: "failed (the collector claims 100000000 bytes of a", state: "failed"),
            Row(
                name: "relative Location", replies: [open("Location: /api/v4/s/1"), H.answer(201)], status: 0, result: "uploaded",
                state: "uploaded"),
            Row(
                name: "terminal escapes in the reason", replies: [H.answer(418, body: "\u{1B}[2J\u{1B}[31mgo\r\naway\u{7}")], status: 75,
                result: "failed (pre-request: HTTP 418: [2J [31mgo away)", state: "failed"),
        ]
    }()

    @Test(arguments: rows)
    func hostileAnswerEndsTheUploadCleanly(_ row: Row) throws {
        let server = try HostileCollector(row.replies)
        defer { server.stop() }
        let cli = CLI()
        let trace = scratch("ride.trace")
        defer { unlink(trace) }
        try shortTrace(fixes: 5).write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(try cli.run(["replay", trace]).status == 0)
        let token = scratch("token")
        defer { unlink(token) }
        #expect(FileManager.default.createFile(atPath: token, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600]))
        let result = try cli.run(["upload", "--url", server.url, "--token-file", token, "--retry-budget", "1"])
        #expect(result.stdout.hasPrefix("measurement 1: \(row.result)"), "\(row.name): \(result.stdout)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("secret"), "\(row.name)")
        if row.status == 0 {
            #expect(result.status == 0, "\(row.name): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(row.name): \(result.stderr)")
        } else {
            let message = row.status == 77 ? "were refused: renew the token in" : "1 of 1 measurement(s) not uploaded"
            // Each retry is a line of its own before the refusal (no terminal here: issue 32).
            var refusal = result
            refusal.stderr = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !($0.hasPrefix("upload: measurement ") && $0.contains(": retrying in ")) }.joined(separator: "\n")
            expectRefusal(refusal, row.status, message, row.name)
        }
        let upload = try cli.json(["show", "1"])["upload"] as? [String: Any] ?? [:]
        #expect(upload["status"] as? String == row.state, "\(row.name): \(upload)")
        #expect(!server.requests.isEmpty, "\(row.name): no request reached the server")
        if row.name == "relative Location" { #expect(server.requests.last?.hasPrefix("PUT /api/v4/s/1 ") == true, "\(server.requests)") }
    }
}

// MARK: - Bad arguments and paths

@Suite struct BadArgumentTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let car = Repository.root + "/fixtures/car.trace"

    static let rows: [Row] = [
        Row(arguments: ["frobnicate"], status: 64, message: "capture: unknown command 'frobnicate'; see `capture --help`"),
        Row(arguments: ["list", "--frob"], status: 64, message: "capture: Unknown option '--frob'. Did you mean '--json'? See `capture list --help`"),
        Row(arguments: ["show"], status: 64, message: "capture: Missing expected argument '<id>'; see `capture show --help`"),
        Row(arguments: ["show", "abc"], status: 64, message: "capture: The value 'abc' is invalid for '<id>'; see `capture show --help`"),
        Row(arguments: ["show", "99"], status: 66, message: "capture: no measurement 99"),
        Row(arguments: ["delete", "0", "--yes"], status: 66, message: "capture: no measurement 0"),
        Row(arguments: ["export", "99", "--format", "gpx"], status: 66, message: "capture: no measurement 99"),
        Row(arguments: ["export", "1", "--format", "pdf"], status: 64, message: "capture: The value 'pdf' is invalid for '--format <format>'"),
        Row(arguments: ["start", "--modality", "rocket", "--source", "trace:" + car], status: 64, message: "capture: unknown modality 'rocket'; use one of"),
        Row(arguments: ["replay", car, "--modality", "rocket"], status: 64, message: "capture: unknown modality 'rocket'; use one of"),
        Row(arguments: ["start", "--flush-interval", "0", "--source", "trace:" + car], status: 64, message: "capture: --flush-interval must be between 0.05 and 3600 seconds"),
        Row(arguments: ["start", "--flush-interval=-1", "--source", "trace:" + car], status: 64, message: "capture: --flush-interval must be between 0.05 and 3600 seconds"),
        Row(arguments: ["replay", car, "--flush-interval", "nan"], status: 64, message: "capture: --flush-interval must be between 0.05 and 3600 seconds"),
        Row(arguments: ["replay", car, "--speed", "0"], status: 64, message: "capture: --speed must be a positive number"),
        Row(arguments: ["replay", car, "--speed", "fast"], status: 64, message: "capture: The value 'fast' is invalid for '--speed <speed>'"),
        Row(arguments: ["start", "--source", "gps:x"], status: 64, message: "capture: unknown source 'gps:x'; use trace:FILE"),
        Row(arguments: ["start", "--source", "gpsd:host:port"], status: 64, message: "capture: bad gpsd address in 'gpsd:host:port'; use gpsd:HOST:PORT"),
        Row(arguments: ["start", "--source", "iio:iio:device0@fast"], status: 64, message: "capture: bad rate in 'iio:iio:device0@fast'"),
        Row(arguments: ["start", "--rate", "0", "--source", "trace:" + car], status: 64, message: "capture: --rate must be a number of Hz above 0"),
        Row(arguments: ["start", "--source", "nmea:/nonexistent/gnss0"], status: 66, message: "capture: no GNSS receiver at /nonexistent/gnss0"),
        Row(arguments: ["replay", "/nonexistent.trace"], status: 66, message: "capture: cannot open trace /nonexistent.trace: No such file or directory"),
        Row(arguments: ["replay", "/tmp"], status: 66, message: "capture: cannot open trace /tmp: it is a directory"),
        Row(arguments: ["upload", "--url", "ftp://127.0.0.1/", "--token-file", "/nonexistent"], status: 64, message: "capture: the collector URL must be an http or https URL"),
        Row(arguments: ["upload", "--url", "http://127.0.0.1:1/", "--token-file", "/nonexistent/token"], status: 66, message: "capture: cannot read the token file /nonexistent/token"),
        Row(arguments: ["upload", "--chunk-size", "0"], status: 64, message: "capture: --chunk-size must be at least 1 byte"),
    ]

    @Test(arguments: rows)
    func badArgumentIsRefusedAndChangesNothing(_ row: Row) throws {
        let cli = CLI()
        // An unknown subcommand is reported before any option, so it is run without --data-dir.
        let result =
            row.arguments == ["frobnicate"]
            ? try Program.run(CLI.executable, row.arguments).cliResult : try cli.run(row.arguments)
        expectRefusal(result, row.status, row.message, row.testDescription)
        #expect(try cli.databaseDump() == "", "\(row.testDescription): something was stored")
        #expect(cli.recorderPID == nil)
    }

    @Test(arguments: ["file", "under a file"])
    func dataDirectoryThatIsAFileIsRefused(_ kind: String) throws {
        let file = scratch("not-a-directory")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { unlink(file) }
        let directory = kind == "file" ? file : file + "/capture"
        let result = try Program.run(CLI.executable, ["replay", Self.car, "--data-dir", directory])
        let reason = kind == "file" ? "it is a file" : "\(file) is a file"
        expectRefusal(
            result.cliResult, 74, "cannot open the data directory \(directory): \(reason), not a directory; choose another --data-dir", kind)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
    }

    @Test func exportToABadPathLeavesNoFile() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", Self.car]).status == 0)
        let before = try cli.databaseDump()
        let file = scratch("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        defer { unlink(file) }
        let missing = scratch("missing-dir") + "/ride.gpx"
        for (arguments, status, message) in [
            (["export", "1", "--format", "gpx", "-o", missing], Int32(74), missing),
            (["export", "1", "--format", "cyface", "-o", file + "/ride.ccyf"], 74, file + "/ride.ccyf"),
            (["export", "1", "--format", "csv", "-o", file], 74, "cannot create the directory \(file)"),
            (["export", "2", "--format", "geojson", "-o", scratch("never.geojson")], 66, "no measurement 2"),
            (
                ["export", "1", "--format", "csv", "-o", scratch("tables.csv")], 64,
                "names a .csv file; nothing was written; pass a directory (-o DIR) for every table, or --table TABLE without -o for one on standard output"
            ),
        ] {
            let result = try cli.run(arguments)
            expectRefusal(result, status, message, arguments.joined(separator: " "))
            if let output = arguments.last { #expect(!FileManager.default.fileExists(atPath: output) || output == file) }
        }
        #expect(!FileManager.default.fileExists(atPath: (missing as NSString).deletingLastPathComponent))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix(".capture-bad-") }
        #expect(leftovers.isEmpty, "temporary export files left: \(leftovers)")
        #expect(try cli.databaseDump() == before)
    }
}

extension Program.Result {
    var cliResult: CLI.Result { CLI.Result(status: status, stdout: stdout, stderr: stderr) }
}
