import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// `capture` against devices: a fake IIO tree with a FIFO for a device node, and a real gpsd fed
/// by gpsfake on a private loopback port.
@Suite struct DeviceEndToEndTests {
    /// A fake `/` with one buffered accelerometer (`iio:device0`, FIFO node) and one device whose
    /// node cannot be opened (`iio:device1`, a directory where the node should be).
    static func fakeRoot() throws -> FakeSysfs {
        let sysfs = FakeSysfs(prefix: "capture-e2e-sysfs")
        sysfs.write("iio:device0", [
            "name": "fakeaccel", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "0",
            "in_accel_scale": "0.01", "sampling_frequency_available": "25 50 100 200", "sampling_frequency": "25",
            "current_timestamp_clock": "realtime",
            "buffer0/enable": "0", "buffer0/length": "0",
            "buffer0/in_accel_x_en": "0", "buffer0/in_accel_x_index": "0",
            "buffer0/in_accel_y_en": "0", "buffer0/in_accel_y_index": "1",
            "buffer0/in_accel_z_en": "0", "buffer0/in_accel_z_index": "2",
            "buffer0/in_accel_type": "le:s16/16>>0",
            "buffer0/in_timestamp_en": "0", "buffer0/in_timestamp_index": "3",
            "buffer0/in_timestamp_type": "le:s64/64>>0",
        ])
        sysfs.write("iio:device1", [
            "name": "fakegyro", "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "0",
            "buffer0/enable": "0",
            "buffer0/in_anglvel_x_en": "0", "buffer0/in_anglvel_x_index": "0",
            "buffer0/in_anglvel_y_en": "0", "buffer0/in_anglvel_y_index": "1",
            "buffer0/in_anglvel_z_en": "0", "buffer0/in_anglvel_z_index": "2",
            "buffer0/in_anglvel_type": "le:s16/16>>0",
        ])
        try sysfs.makeUnopenableNode("iio:device1")
        sysfs.makeNode("iio:device0")
        return sysfs
    }

    @Test("sensors lists the fake devices; start without --source uses them, reports the rate, counts the failed one, records a trace that replays to the same data")
    func fakeIIO() throws {
        let sysfs = try Self.fakeRoot()
        defer { sysfs.remove() }
        let root = sysfs.path
        let cli = CLI()
        let sensors = try cli.json(["sensors", "--sysfs-root", root, "--gpsd", "127.0.0.1:1"])
        let devices = sensors["iio"] as? [[String: Any]] ?? []
        #expect(devices.map { $0["id"] as? String } == ["iio:device0", "iio:device1"])
        #expect(devices.first?["sensors"] as? [String] == ["acc"])
        #expect(devices.first?["buffer"] as? Bool == true)
        #expect(devices.first?["availableRates"] as? String == "25 50 100 200")

        let missing = try cli.run(["start", "--sysfs-root", root, "--source", "iio:iio:device9"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "capture: no IIO device iio:device9 under \(root)/sys/bus/iio/devices\n")

        let trace = cli.dataDirectory + "-recorded.trace"
        defer { unlink(trace) }
        // The writer: 300 scans at ~200 Hz into the FIFO once the recorder opens it.
        let writer = Thread {
            let fd = open(root + "/dev/iio:device0", O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            var now = timespec()
            for i in 0..<300 {
                clock_gettime(CLOCK_REALTIME, &now)
                var scan = [UInt8]()
                for value in [Int16(i), Int16(-i), Int16(981)] { withUnsafeBytes(of: value.littleEndian) { scan += $0 } }
                scan += [0, 0]
                let ns = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
                withUnsafeBytes(of: ns.littleEndian) { scan += $0 }
                _ = scan.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                usleep(5_000)
            }
            close(fd)
        }
        writer.start()
        let started = try cli.run(["start", "-v", "--sysfs-root", root, "--rate", "90", "--record-trace", trace])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stderr.contains("using iio:\(root)/sys/bus/iio/devices/iio:device0"))
        #expect(started.stderr.contains("rate 100 Hz (asked 90)"))
        #expect(try cli.waitFor(20) {
            let status = try cli.json(["status"])
            let sources = (status["recorder"] as? [String: Any])?["sources"] as? [[String: Any]] ?? []
            return sources.first?["state"] as? String == "ended"
        })
        let status = try cli.json(["status"])
        let recorder = status["recorder"] as? [String: Any] ?? [:]
        #expect(recorder["failedSources"] as? Int == 1)
        let sources = recorder["sources"] as? [[String: Any]] ?? []
        #expect(sources.first?["samples"] as? Int == 300)
        let failure = sources.last?["error"] as? String ?? ""
        #expect(failure.contains("iio:device1"))
        #expect(try cli.run(["stop"]).status == 0)
        let shown = try cli.json(["show", "1"])
        let counts = shown["counts"] as? [String: Any] ?? [:]
        #expect(counts["accelerometer"] as? Int == 300)

        let replay = CLI()
        let replayed = try replay.run(["replay", trace])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let again = try replay.json(["show", "1"])
        #expect((again["counts"] as? [String: Any])?["accelerometer"] as? Int == 300)
        #expect(again["start"] as? Int == shown["start"] as? Int)
        #expect(again["end"] as? Int == shown["end"] as? Int)
    }

    @Test("a real gpsd fed by gpsfake on a private port: fixes recorded, fix state in status, reconnect after gpsd restarts")
    func gpsfake() throws {
        let candidates: [String] = ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"]
        guard let gpsfake = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
                || FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsd")
        else {
            Issue.record("gpsd/gpsfake are not installed: run scripts/setup (installs gpsd gpsd-clients python3-gps)")
            return
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("capture-gpsfake-\(UUID().uuidString).log").path
        defer { unlink(log) }
        try Self.syntheticLog(epochs: 30).write(toFile: log, atomically: false, encoding: .utf8)
        let port = try Loopback.freePort()
        let fake = try Subprocess(
            ["-q", "-P", "\(port)", "-c", "0.05", log], bytes: [], executable: gpsfake, mergingStandardError: true)
        defer { fake.stop(includingChildren: true) }
        let cli = CLI()
        // gpsfake starts its gpsd before replaying; wait until the port answers.
        var up = false
        for _ in 0..<100 where !up {
            up = Loopback.canConnect(port: port)
            if !up { usleep(100_000) }
        }
        #expect(up, "gpsd did not come up on port \(port): \(fake.output)")
        fake.noteChildren()
        let started = try cli.run(["start", "--source", "gpsd:127.0.0.1:\(port)", "--flush-interval", "0.2"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try cli.waitFor(30) {
            let status = try cli.json(["status"])
            return ((status["committed"] as? [String: Any])?["locations"] as? Int ?? 0) >= 3
        }, "no fixes from gpsd: \(fake.output)")
        let status = try cli.json(["status"])
        let source = ((status["recorder"] as? [String: Any])?["sources"] as? [[String: Any]])?.first ?? [:]
        #expect(source["gnss"] as? String == "fixed")
        let fix = (status["recorder"] as? [String: Any])?["lastFix"] as? [String: Any] ?? [:]
        #expect(abs((fix["latitude"] as? Double ?? 0) - 51.05) < 0.01)
        #expect(abs((fix["longitude"] as? Double ?? 0) - 13.73) < 0.01)

        // gpsd restarts: the client reconnects (with backoff) and fixes keep coming.
        fake.stop(includingChildren: true)
        let before = ((try cli.json(["status"])["committed"] as? [String: Any])?["locations"] as? Int) ?? 0
        // A longer log this time, so that gpsd is still serving while the status is read; the
        // note is checked on every poll (it changes again when gpsfake's log ends).
        let longLog = log + ".long"
        defer { unlink(longLog) }
        try Self.syntheticLog(epochs: 400).write(toFile: longLog, atomically: false, encoding: .utf8)
        let restarted = try Subprocess(
            ["-q", "-P", "\(port)", "-c", "0.05", longLog], bytes: [], executable: gpsfake, mergingStandardError: true)
        defer { restarted.stop(includingChildren: true) }
        for _ in 0..<100 where !Loopback.canConnect(port: port) { usleep(100_000) }
        restarted.noteChildren()
        var notes: [String] = []
        #expect(try cli.waitFor(40) {
            let status = try cli.json(["status"])
            let source = ((status["recorder"] as? [String: Any])?["sources"] as? [[String: Any]])?.first
            notes.append(source?["note"] as? String ?? "")
            return ((status["committed"] as? [String: Any])?["locations"] as? Int ?? 0) >= before + 3
        }, "no fixes after gpsd restarted: \(restarted.output)")
        #expect(notes.contains { $0.contains("reconnected to gpsd") }, "\(Set(notes))")
        #expect(try cli.run(["stop"]).status == 0)
    }

    @Test("capture replay takes gpsd's real NMEA and UBX logs in place, by content", SharedData.required)
    func replayRealNMEALogs() throws {
        // The last three: a timing receiver's time-only fixes, UBX behind RTCM3, HNR-PVT at 10 Hz.
        for name in [
            "garmin15x.log", "quectel-eg25-g.log", "ublox-neo-m9n-nmea.log", "u-blox-m8t-time.log", "ublox-zed-f9t-rtcm3.log",
            "ublox-neo-m8u-hnr.log",
        ] {
            let cli = CLI()
            let result = try cli.run(["replay", SharedData.path(name)])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let shown = try cli.json(["show", "1"])
            #expect(((shown["counts"] as? [String: Any])?["locations"] as? Int ?? 0) > 0, "\(name)")
        }
        let cli = CLI()
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("capture-empty-\(UUID().uuidString).gpx").path
        defer { unlink(empty) }
        try "<?xml version=\"1.0\"?><gpx version=\"1.1\"></gpx>".write(toFile: empty, atomically: false, encoding: .utf8)
        let result = try cli.run(["replay", empty])
        #expect(result.status == 65, "\(result.stderr)")
    }

    @Test("show: barometric altitude relative to the first sample, absolute with --qnh")
    func barometricAltitude() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).status == 0)
        let relative = try cli.json(["show", "1"])["barometricAltitude"] as? [String: Any] ?? [:]
        #expect(relative["kind"] as? String == "relative")
        #expect(relative["start"] as? Double == 0)
        #expect(relative["seaLevelPressure"] as? Double == 1013.25)
        let absolute = try cli.json(["show", "1", "--qnh", "1000"])["barometricAltitude"] as? [String: Any] ?? [:]
        #expect(absolute["kind"] as? String == "absolute")
        // 995.153 hPa under a QNH of 1000 hPa: 44330 × (1 − (995.153/1000)^(1/5.255)) ≈ 41.0 m.
        let expected = 44330 * (1 - pow(995.153 / 1000, 1 / 5.255))
        #expect(abs((absolute["start"] as? Double ?? 0) - expected) < 0.001)
        let text = try cli.run(["show", "1", "--qnh", "1000"]).stdout
        #expect(text.contains("altitude  barometric, above sea level: 41.0 → "), "\(text)")
        #expect(text.contains(" (QNH 1000.0 hPa)"))
        #expect(try cli.run(["show", "1", "--qnh", "5"]).status == 64)
    }

    /// RMC + GGA epochs near Dresden, 1 s apart, moving north, from a minute from now (UTC): a
    /// fix older than its measurement's start is not stored in it (docs/live-sensors.md).
    static func syntheticLog(epochs: Int) -> String {
        func checksum(_ body: String) -> String {
            "$" + body + "*" + String(format: "%02X", body.utf8.reduce(UInt8(0), ^)) + "\r\n"
        }
        var text = "# synthetic receiver log for the gpsd end-to-end test\n"
        let start = Int(Date().timeIntervalSince1970) + 60
        for i in 0..<epochs {
            var seconds = time_t(start + i)
            var utc = tm()
            gmtime_r(&seconds, &utc)
            let time = String(format: "%02d%02d%02d.00", utc.tm_hour, utc.tm_min, utc.tm_sec)
            let date = String(format: "%02d%02d%02d", utc.tm_mday, utc.tm_mon + 1, utc.tm_year % 100)
            let lat = String(format: "5103.%04d", 240 + i * 5)
            text += checksum("GPRMC,\(time),A,\(lat),N,01344.2380,E,5.0,0.0,\(date),,,A")
            text += checksum("GPGGA,\(time),\(lat),N,01344.2380,E,1,08,0.9,112.0,M,46.0,M,,")
        }
        return text
    }
}
