import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A ride cut by power and judged as a whole (issue 41, item 1): the box as capture-record.service
/// runs it (`ride.detect: auto`, `capture start --foreground --continue-interrupted`), a fake
/// accelerometer and a receiver on a pty, the power cut as `kill -9` of the recorder. A ride that
/// moved before the cut is never discarded for standing still after it; a ride ended by power
/// that moved less than `ride.min_distance` is discarded as any short ride is.
@Suite struct RideRecoveryEndToEndTests {
    static func ridesTotal(_ metrics: String, _ event: String, _ by: String) -> Int? {
        let prefix = "capture_rides_total{event=\"\(event)\",by=\"\(by)\"} "
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    @Test("a ride continued after a short power cut and then standing still keeps everything it moved before the cut")
    func continuedThenStill() throws {
        let box = try RideEndToEndTests.Box(["CAPTURE_RIDE_MIN_DISTANCE=50m"])
        defer { box.end() }
        let cli = box.cli
        box.play(3, moving: false)
        // About 80 m at 10 m/s: more than ride.min_distance.
        box.play(8, moving: true)
        #expect(try cli.waitFor {
            let status = try cli.json(["status"])
            let fixes = (status["committed"] as? [String: Any])?["locations"] as? Int ?? 0
            let distance = (status["ride"] as? [String: Any])?["distance"] as? Double ?? 0
            return fixes >= 20 && distance >= 60
        })
        let before = try #require((try cli.json(["status"])["committed"] as? [String: Any])?["locations"] as? Int)
        box.cut()
        // Back within ride.resume_within (2 min): the ride goes on, on a new track, knowing its way.
        try box.boot(["CAPTURE_RIDE_MIN_DISTANCE=50m"])
        #expect(try cli.waitFor { (try cli.json(["status"])["track"] as? Int) == 2 })
        let resumed = try cli.json(["status"])
        #expect(((resumed["ride"] as? [String: Any])?["distance"] as? Double ?? 0) >= 60, "\(resumed)")
        // Standing for longer than ride.end_after_still (3 s): the ride ends, kept.
        box.play(6, moving: false)
        #expect(try cli.waitFor { ((try cli.json(["status"])["ride"] as? [String: Any])?["state"] as? String) == "armed" })
        let shown = try cli.json(["show", "1"])
        #expect((shown["events"] as? [[String: Any]])?.last?["type"] as? String == "LIFECYCLE_STOP", "\(shown)")
        let kept = (shown["counts"] as? [String: Any])?["locations"] as? Int ?? 0
        #expect(kept >= before, "nothing committed before the cut is lost: \(kept) of \(before) fixes")
        let journal = try String(contentsOfFile: cli.dataDirectory + "/attachments/1/recorder.jsonl", encoding: .utf8)
        #expect(journal.contains("\"discarded\":false"), "\(journal)")
        let metrics = try cli.run(["metrics"]).stdout
        #expect(Self.ridesTotal(metrics, "discarded", "still") == 0, "\(metrics)")
        #expect(Self.ridesTotal(metrics, "ended", "motion") == 1, "\(metrics)")
    }

    @Test("a ride ended by power is judged by ride.min_distance: a push of a few metres is discarded, a ride is kept")
    func endedByPowerIsJudged() throws {
        let environment = ["CAPTURE_RIDE_RESUME_WITHIN=1s", "CAPTURE_RIDE_MIN_DISTANCE=40m"]
        let box = try RideEndToEndTests.Box(environment)
        defer { box.end() }
        let cli = box.cli
        box.play(2, moving: false)
        // A push: 1.2 m/s for about 5 s, some 6 m; a ride begins (speed over 1 m/s) and is recorded.
        box.world.step.store(300, ordering: .relaxed)
        box.play(5, moving: true)
        #expect(try cli.waitFor { ((try cli.json(["status"])["committed"] as? [String: Any])?["locations"] as? Int ?? 0) >= 5 })
        #expect(try cli.json(["status"])["measurement"] as? Int == 1)
        box.cut()
        // Back after ride.resume_within: the push is finished as ended by power, and discarded.
        usleep(1_300_000)
        try box.boot(environment)
        #expect(try cli.waitFor { Self.ridesTotal(try cli.run(["metrics"]).stdout, "ended", "power") == 1 })
        #expect(try cli.waitFor { Self.ridesTotal(try cli.run(["metrics"]).stdout, "discarded", "still") == 1 })
        #expect(try cli.run(["list", "--json"]).stdout.filter { !$0.isWhitespace } == "[]")
        #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/attachments/1"))
        // A ride of about 80 m, cut the same way: finished, kept.
        box.world.step.store(2_500, ordering: .relaxed)
        box.play(8, moving: true)
        #expect(try cli.waitFor {
            let status = try cli.json(["status"])
            return ((status["ride"] as? [String: Any])?["distance"] as? Double ?? 0) >= 60
                && ((status["committed"] as? [String: Any])?["locations"] as? Int ?? 0) >= 20
        })
        let ride = try #require(try cli.json(["status"])["measurement"] as? Int)
        box.cut()
        usleep(1_300_000)
        try box.boot(environment)
        #expect(try cli.waitFor { Self.ridesTotal(try cli.run(["metrics"]).stdout, "ended", "power") == 2 })
        let shown = try cli.json(["show", String(ride)])
        #expect((shown["events"] as? [[String: Any]])?.last?["type"] as? String == "LIFECYCLE_STOP", "\(shown)")
        #expect(Self.ridesTotal(try cli.run(["metrics"]).stdout, "discarded", "still") == 1)
    }
}
