import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A ride that begins while another process has held the store since the recorder started, so
/// that no measurement id could be reserved for it (issue 41, item 6): the box as
/// capture-record.service runs it (`ride.detect: auto`), an `sqlite3` reading for longer than the
/// busy timeout. Before, the ride's begin waited the busy timeout (10 s) for the store's insert
/// and then ended the recording.
@Suite struct BusyRideBeginEndToEndTests {
    @Test("a ride begun with no id reserved while another process holds the store begins once it lets go; the recording goes on")
    func aRideBegunWithoutAReservedIDWaitsForTheStore() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        var reader: Subprocess?
        let box = try RideEndToEndTests.Box { (cli: CLI) throws -> [String] in
            let replayed = try cli.run(["replay", cli.fixture("bicycle.trace")])
            #expect(replayed.status == 0, "\(replayed.stderr)")
            // Held before the recorder starts: it can reserve no id, and none was reserved before.
            reader = try Subprocess(
                ["-cmd", ".timeout 5000", cli.dataDirectory + "/capture.sqlite", "BEGIN", "SELECT count(*) FROM event", ".shell sleep 30",
                    "COMMIT"], executable: sqlite3)
            // Until the reader holds its lock (sqlite3 starts slowly on a loaded machine): an
            // exclusive lock is refused then.
            for _ in 0..<100 {
                let probe = try Subprocess(
                    ["-cmd", ".timeout 0", cli.dataDirectory + "/capture.sqlite", "BEGIN EXCLUSIVE", "ROLLBACK"], executable: sqlite3)
                if probe.wait() != 0 { break }
                usleep(100_000)
            }
            return []
        }
        defer {
            box.end()
            reader?.stop()
        }
        let held = try #require(reader)
        let cli = box.cli
        box.play(2, moving: false)
        // A ride begins within a few seconds; past the busy timeout the recorder still runs.
        let moved = box.play(18, moving: true)
        #expect(Subprocess.isAlive(held.pid), "the reader let go early: the test proves less than it says")
        #expect(Subprocess.isAlive(box.recorder.pid), "the recording ended: \(box.recorder.stderr)")
        #expect((try cli.json(["status"])["ride"] as? [String: Any])?["state"] as? String == "recording")
        _ = held.wait()
        let released = RideEndToEndTests.now()
        // Once the reader lets go the ride begins in the store, with what it recorded meanwhile.
        // Its id is the first free one, or one reserved meanwhile (a reservation that waited for
        // the same lock may land first; the ids no ride takes are given back).
        var ride: Int?
        for _ in 0..<20 where ride == nil {
            box.play(1, moving: true)
            ride = (try cli.json(["status"])["measurement"] as? Int).flatMap { $0 > 1 ? $0 : nil }
        }
        let begun = ride != nil
        let shownStatus = try cli.run(["status"]).stdout
        #expect(begun, "\(shownStatus)\n\(box.recorder.stderr)")
        box.play(4, moving: false)
        let stopped = try cli.run(["stop"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let listed = try JSONSerialization.jsonObject(with: Data(try cli.run(["list", "--json"]).stdout.utf8))
        #expect((listed as? [Any])?.count == 2, "one ride besides the replay: \(listed)")
        let shown = try cli.json(["show", String(ride ?? 2)])
        let start = Int64(shown["start"] as? Int ?? 0)
        #expect(start < moved.from + 5_000 && start < released - 10_000, "start \(start), motion from \(moved.from)")
        let samples = (shown["counts"] as? [String: Any])?["accelerometer"] as? Int ?? 0
        #expect(samples >= 1_500, "\(samples) accelerometer samples: what the ride took while the store was held is in it")
        #expect(Subprocess.isAlive(box.recorder.pid), "\(box.recorder.stderr)")
    }
}
