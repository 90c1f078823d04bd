import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A box whose store is full of rides the collector has not taken (issue 41, item 6): the
/// recorder as capture-record.service runs it (`ride.detect: auto`, `capture start --foreground
/// --continue-interrupted`), `retention.max_store_size` at the store's size, `drop_unsent:
/// never`. Before, the first ride filled the store and the recorder exited 73; the unit started
/// it again 5 s later, and each boot's recovery applied what the stopped recorder had staged
/// with no ceiling, a page or so a boot.
@Suite struct FullStoreEndToEndTests {
    static func size(_ cli: CLI) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: cli.dataDirectory + "/capture.sqlite")[.size] as? Int) ?? 0
    }

    static func ride(_ status: [String: Any]) -> [String: Any] { status["ride"] as? [String: Any] ?? [:] }

    @Test("a store full of unsent rides: the recorder waits armed and says so, the store does not grow, and it records again once there is room")
    func aFullStoreIsWaitedOut() throws {
        var budget = 0
        let box = try RideEndToEndTests.Box { (cli: CLI) throws -> [String] in
            for _ in 0..<3 {
                let replayed = try cli.run(["replay", cli.fixture("bicycle.trace")])
                #expect(replayed.status == 0, "\(replayed.stderr)")
            }
            budget = Self.size(cli)
            return ["CAPTURE_RETENTION_MAX_STORE_SIZE=\(budget)"]
        }
        defer { box.end() }
        let cli = box.cli
        box.play(2, moving: false)
        // A ride begins and soon finds the store full: nothing may be pruned.
        var waiting = false
        for _ in 0..<30 where !waiting {
            box.play(1, moving: true)
            waiting = Self.ride(try cli.json(["status"]))["state"] as? String == "waiting-for-room"
        }
        let shown = try cli.run(["status"]).stdout
        #expect(waiting, "\(shown)\n\(box.recorder.stderr)")
        #expect(Subprocess.isAlive(box.recorder.pid), "the recorder stays up: \(box.recorder.stderr)")
        let status = try cli.json(["status"])
        #expect(Self.ride(status)["reason"] as? String == "store-full", "\(status)")
        let text = try cli.run(["status"]).stdout
        #expect(text.hasPrefix("waiting for room since "), "\(text)")
        #expect(text.contains("nothing is recorded"), "\(text)")
        // It stays so while the bike moves on, and the store does not grow.
        let size = Self.size(cli)
        box.play(5, moving: true)
        #expect(Subprocess.isAlive(box.recorder.pid), "\(box.recorder.stderr)")
        #expect(Self.ride(try cli.json(["status"]))["state"] as? String == "waiting-for-room")
        #expect(Self.size(cli) <= size, "the store grew while waiting: \(Self.size(cli)) from \(size)")
        #expect(Self.size(cli) <= budget + 3 * 4096, "\(Self.size(cli)) of \(budget)")
        let metrics = try cli.run(["metrics"]).stdout
        #expect(metrics.contains("\ncapture_recorder_waiting_for_room 1.0\n"), "\(metrics)")
        let doctor = try cli.run(["doctor", "--json", "--seconds", "1"])
        let checks = (try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: String]]
        let recorder = checks?.first { $0["check"] == "recorder" }
        #expect(recorder?["status"] == "warn", "\(doctor.stdout)")
        #expect(recorder?["detail"]?.contains("waiting for room") == true, "\(doctor.stdout)")
        // Room is made (here: a ride deleted by hand; delivery and pruning do the same): the
        // recorder records again by itself, without a restart.
        #expect(try cli.run(["delete", "1", "--yes"]).status == 0)
        var recording = false
        for _ in 0..<30 where !recording {
            box.play(1, moving: true)
            let now = try cli.json(["status"])
            recording = Self.ride(now)["state"] as? String == "recording" && (now["measurement"] as? Int ?? 0) > 3
        }
        let again = try cli.run(["status"]).stdout
        #expect(recording, "\(again)\n\(box.recorder.stderr)")
        #expect(try cli.run(["metrics"]).stdout.contains("\ncapture_recorder_waiting_for_room 0.0\n"))
        #expect(Subprocess.isAlive(box.recorder.pid), "\(box.recorder.stderr)")
    }
}
