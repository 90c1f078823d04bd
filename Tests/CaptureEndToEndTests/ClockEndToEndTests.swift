import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// One clock per measurement: a recorder whose host clock is wrong (Debian's `faketime` shifts
/// it by days or minutes, either way) records a live receiver's NMEA on a pty, carrying the real
/// time, and a fake IIO accelerometer stamped by the same wrong host clock. What it stores must
/// line up on GNSS time: the events bracket the fixes, and every track holds its own fixes and
/// motion samples.
@Suite struct ClockEndToEndTests {
    static let faketime = "/usr/bin/faketime"

    /// `hhmmss.ss` and `ddmmyy` of a Unix time in milliseconds, UTC.
    static func nmeaTime(_ ms: Int64) -> (time: String, date: String) {
        var seconds = time_t(ms / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let time = String(format: "%02d%02d%02d.%02d", parts.tm_hour, parts.tm_min, parts.tm_sec, Int(ms % 1000) / 10)
        let date = String(format: "%02d%02d%02d", parts.tm_mday, parts.tm_mon + 1, parts.tm_year % 100)
        return (time, date)
    }

    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + String(format: "*%02X\r\n", sum)
    }

    /// One epoch (RMC and GGA) at the real time now, 0.1 m further east each time.
    static func epoch(_ index: Int) -> (text: String, time: Int64) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // NMEA carries hundredths of a second.
        let ms = (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000) / 10 * 10
        let (time, date) = nmeaTime(ms)
        let longitude = String(format: "01344.%04d", 2380 + index)
        return (
            sentence("GPRMC,\(time),A,5103.0240,N,\(longitude),E,10.0,90.0,\(date),,,A")
                + sentence("GPGGA,\(time),5103.0240,N,\(longitude),E,1,08,0.9,112.0,M,46.0,M,,"), ms
        )
    }

    /// A GGA without a fix at the real time now: it closes the epoch before it (an NMEA epoch
    /// is complete when the next one begins) and becomes no fix itself.
    static func closing() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (time, _) = nmeaTime(Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
        return sentence("GPGGA,\(time),,,,,0,00,,,M,,M,,")
    }

    @Test(
        "a host clock off by days or minutes, either way: events, tracks, fixes and motion line up on GNSS time",
        arguments: [("-2d", -2 * 86_400_000), ("+2d", 2 * 86_400_000), ("-5m", -300_000), ("+5m", 300_000)] as [(String, Int64)])
    func wrongHostClock(shift: String, shiftMs: Int64) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.faketime) else {
            Issue.record("faketime is not installed: run scripts/setup (installs Debian's faketime)")
            return
        }
        signal(SIGPIPE, SIG_IGN)
        let sysfs = try DeviceEndToEndTests.fakeRoot()
        defer { sysfs.remove() }
        let terminal = try PseudoTerminal()
        let pty = terminal.path
        func send(_ text: String) {
            _ = terminal.write(text)
        }

        // The accelerometer: scans at about 100 Hz, stamped by the recorder's (wrong) clock.
        let stopWriting = Flag()
        let node = sysfs.path + "/dev/iio:device0"
        let writer = Thread {
            let fd = open(node, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var now = timespec()
            var index = 0
            while !stopWriting.isSet {
                clock_gettime(CLOCK_REALTIME, &now)
                var scan = [UInt8]()
                let x = Int16(index % 1000)
                for value in [x, -x, Int16(981)] { withUnsafeBytes(of: value.littleEndian) { scan += $0 } }
                scan += [0, 0]
                let ns = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) + shiftMs * 1_000_000
                withUnsafeBytes(of: ns.littleEndian) { scan += $0 }
                // A recorder that let go of the device ends the writer (EPIPE; SIGPIPE is ignored).
                guard scan.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 else { return }
                index += 1
                usleep(10_000)
            }
        }
        writer.start()
        defer { stopWriting.set() }

        let cli = CLI()
        let start = try Subprocess(
            [
                "--exclude-monotonic", "-f", shift, CLI.executable, "start", "--gnss-time", "always", "--sysfs-root",
                sysfs.path, "--source", "iio:iio:device0", "--source", "nmea:" + pty, "--flush-interval", "0.2",
                "--data-dir", cli.dataDirectory,
            ], bytes: [], executable: Self.faketime)
        #expect(start.wait() == 0, "\(start.stderr)")
        terminal.closeSlave()
        var sent: [Int64] = []
        func epochs(_ count: Int) {
            for _ in 0..<count {
                let (text, time) = Self.epoch(sent.count)
                send(text)
                sent.append(time)
                usleep(200_000)
            }
            send(Self.closing())
            usleep(300_000)
        }

        epochs(8)
        let corrected = try cli.waitFor(10) {
            let clock = (try cli.json(["status"])["recorder"] as? [String: Any])?["clock"] as? [String: Any]
            return clock?["correctionMs"] as? Int64 != nil
        }
        let status = try cli.run(["status"]).stdout
        let log = (try? String(contentsOfFile: cli.dataDirectory + "/recorder.log", encoding: .utf8)) ?? ""
        #expect(corrected, "no clock correction: \(status) \(log)")
        epochs(4)
        #expect(try cli.run(["pause"]).status == 0)
        usleep(400_000)
        #expect(try cli.run(["resume"]).status == 0)
        usleep(200_000)
        epochs(6)
        #expect(try cli.run(["stop"]).status == 0)
        stopWriting.set()

        // The correction undoes the shift, give or take the receiver's delay and the epoch wait.
        let shown = try cli.json(["show", "1"])
        let stored = shown["clockCorrectionMs"] as? Int64 ?? 0
        #expect(abs(stored + shiftMs) < 1_500, "correction \(stored) for a shift of \(shiftMs) ms")
        let events = (shown["events"] as? [[String: Any]] ?? []).compactMap { $0["timestamp"] as? Int64 }
        let tracks = (shown["tracks"] as? [[String: Any]] ?? []).map {
            (number: $0["number"] as? Int ?? 0, start: $0["start"] as? Int64 ?? 0, end: $0["end"] as? Int64 ?? 0)
        }
        #expect(tracks.count == 2, "\(shown)")
        guard let first = events.min(), let last = events.max(), let sentFirst = sent.first else { return }
        // The measurement began on GNSS time, before the first fix was sent.
        #expect(first <= sentFirst && sentFirst - first < 5_000, "start \(first), first fix \(sentFirst)")

        let export = cli.dataDirectory + "-csv"
        defer { try? FileManager.default.removeItem(atPath: export) }
        #expect(try cli.run(["export", "1", "--format", "csv", "-o", export]).status == 0)
        for file in ["locations.csv", "accelerometer.csv"] {
            let lines = try String(contentsOfFile: export + "/" + file, encoding: .utf8).split(separator: "\n").dropFirst()
            let rows: [(time: Int64, track: Int)] = lines.map { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                return (Int64(fields[0]) ?? 0, Int(fields[1]) ?? 0)
            }
            #expect(Set(rows.map(\.track)) == [1, 2], "\(file): tracks \(Set(rows.map(\.track)))")
            for row in rows {
                #expect(row.time >= first && row.time <= last, "\(file): \(row.time) outside \(first)…\(last)")
                guard let track = tracks.first(where: { $0.number == row.track }) else {
                    Issue.record("\(file): no track \(row.track)")
                    continue
                }
                #expect(
                    row.time >= track.start && row.time <= track.end,
                    "\(file): \(row.time) outside track \(track.number) \(track.start)…\(track.end)")
            }
        }
    }
}

/// A flag one thread sets and another reads.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
