import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The box path without hardware (issue 46): the packaged example configuration
/// (`dist/config.example.yaml`, `ride.detect: auto`) with only its source changed to a trace, run
/// as capture-record.service runs it. The trace plays as a receiver would, live-paced on today's
/// clock (here 60 times faster, the ride rules with it); its motion and stillness begin and end
/// the ride; the recorder stays armed after it; the tally counts what happened.
@Suite struct TraceBoxEndToEndTests {
    /// How many times faster than recorded the trace plays: its 72 s in 1.2 s, `ride.end_after_still`
    /// (5 min) in 5 s.
    static let speed = 60

    /// A 72-second bicycle ride (`scripts/make-ride --hours 0.02`): 6 s standing, about 58 s
    /// riding (some 250 m), 8 s standing.
    static func trace(in directory: String) throws -> String {
        let path = directory + "/ride.trace"
        let made = try Program.run(
            "/usr/bin/env", ["python3", Repository.root + "/scripts/make-ride", "--ride", "bicycle", "--hours", "0.02", "--out", path])
        #expect(made.status == 0, "make-ride: \(made.stderr)")
        return path
    }

    /// The example configuration with `capture.sources` set to `source`, nothing else changed.
    static func configuration(source: String, in directory: String) throws -> String {
        let example = try String(contentsOfFile: Repository.root + "/dist/config.example.yaml", encoding: .utf8)
        #expect(example.contains("  sources: [gpsd]\n") && example.contains("  detect: auto\n"))
        let path = directory + "/config.yaml"
        try example.replacingOccurrences(of: "  sources: [gpsd]\n", with: "  sources: [\"\(source)\"]\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What one run of the box left: the ride's counts and times, the tally, what it printed.
    struct Run {
        var counts: [String: Int]
        var start: Int64
        var end: Int64
        var fixTimes: [Int64]
        var tally: String
        var metrics: String
        var printed: String
    }

    /// Boots the box on the trace, waits until its ride has ended and the recorder is armed
    /// again, then stops it as `systemctl stop` does.
    func box(_ scratch: Scratch) throws -> Run {
        let cli = CLI()
        let trace = try Self.trace(in: scratch.path)
        let config = try Self.configuration(source: "trace:\(trace)@speed=\(Self.speed)", in: scratch.path)
        let booted = RideEndToEndTests.now()
        let recorder = try Subprocess(
            ["-i", "PATH=/usr/bin:/bin", "HOME=\(scratch.path)", "CAPTURE_CONFIG=\(config)"] + Program.runtimeDirectoryVariable + [
                CLI.executable, "start", "--foreground", "--continue-interrupted", "--data-dir", cli.dataDirectory,
            ], bytes: [], executable: "/usr/bin/env")
        var waited = false
        defer { if !waited { kill(recorder.pid, SIGKILL) } }
        // 72 s of trace is 1.2 s; still from about 64 s, the ride ends 5 s (5 min / 60) later.
        let ended = try cli.waitFor(30) {
            try cli.run(["metrics"]).stdout.contains("capture_rides_total{event=\"ended\",by=\"motion\"} 1")
        }
        let shown = try cli.run(["status"]).stdout
        #expect(ended, "the ride did not end: \(shown)")
        // The unit's command runs on, armed, after the trace's ride.
        #expect(kill(recorder.pid, 0) == 0, "the recorder exited: \(recorder.stderr)")
        let status = try cli.json(["status"])
        #expect((status["ride"] as? [String: Any])?["state"] as? String == "armed", "\(status)")
        let tally = try cli.run(["status"]).stdout
        kill(recorder.pid, SIGTERM)
        #expect(recorder.wait() == 0, "\(recorder.stderr)")
        waited = true
        let stopped = RideEndToEndTests.now()

        let list = try cli.run(["list", "--json"]).stdout
        #expect(list.contains("\"id\" : 1") && !list.contains("\"id\" : 2"), "one ride: \(list)")
        let show = try cli.json(["show", "1"])
        let start = Int64(try #require(show["start"] as? Int))
        let end = Int64(try #require(show["end"] as? Int))
        // Today's clock: the ride lies within the run, not in 1970 or the trace's 2026-06-14.
        #expect(start >= booted - 1_000 && end <= stopped && start < end, "start \(start) end \(end), run \(booted)…\(stopped)")
        let csv = try cli.run(["export", "1", "--format", "csv"]).stdout
        let fixTimes = csv.split(separator: "\n").dropFirst().compactMap { Int64($0.prefix { $0 != "," }) }
        return Run(
            counts: show["counts"] as? [String: Int] ?? [:], start: start, end: end, fixTimes: fixTimes,
            tally: tally.split(separator: "\n").first { $0.contains("rides") }.map(String.init) ?? tally,
            metrics: try cli.run(["metrics"]).stdout, printed: recorder.stdout)
    }

    @Test("the example configuration with a trace source: live-paced on today's clock, its ride by motion, armed after it, counted; twice the same")
    func theBoxWithoutHardware() throws {
        let scratch = try Scratch.make("trace-box")
        let first = try box(scratch)
        #expect(first.printed.hasPrefix("armed: recorder "), "\(first.printed)")
        // The ride: from its pre-roll (the trace's start) to where it stood still (about 64 s of
        // 72), about 65 fixes at 1 Hz, each within the measurement.
        #expect((55...70).contains(first.counts["locations"] ?? 0), "\(first.counts)")
        #expect(first.fixTimes.count == first.counts["locations"], "\(first.fixTimes.count) fixes exported")
        #expect(first.fixTimes.allSatisfy { $0 >= first.start && $0 <= first.end }, "fixes outside \(first.start)…\(first.end)")
        // 64 s of trace played 60 times faster.
        #expect((900...1_300).contains(first.end - first.start), "lasted \(first.end - first.start) ms")
        // 100 Hz in the trace is 6 000 Hz played: the accelerometer holds 100 per fix.
        #expect(abs((first.counts["accelerometer"] ?? 0) - 100 * (first.counts["locations"] ?? 0)) <= 200, "\(first.counts)")
        #expect(
            first.tally.contains("begun 1 by motion, 0 by size; ended 1 by motion, 0 by power, 0 by size, 0 by command; 0 discarded"),
            "\(first.tally)")
        #expect(first.metrics.contains("capture_rides_total{event=\"begun\",by=\"motion\"} 1"), "\(first.metrics)")
        #expect(first.metrics.contains("capture_rides_total{event=\"ended\",by=\"motion\"} 1"))
        #expect(first.metrics.contains("capture_rides_total{event=\"ended\",by=\"command\"} 0"))

        let second = try box(scratch)
        #expect(second.counts == first.counts, "the same run, other counts: \(first.counts) then \(second.counts)")
        #expect(second.tally == first.tally)
    }
}
