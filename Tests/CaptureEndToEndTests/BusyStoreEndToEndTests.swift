import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A store another process reads for a long time (issue 28, item 5): lifecycle commands never end
/// the recording; their events wait, durable, in the flush log and land in order once the reader
/// lets go.
@Suite(.serialized) struct BusyStoreEndToEndTests {
    /// SQLite's busy timeout, which a lifecycle commit used to wait before the recording ended.
    static let busyTimeout = 10.0

    /// The database as it stands, read without applying the flush log (as `capture` would).
    static func query(_ sql: String, in database: String, with sqlite3: String) throws -> [String] {
        let result = try Program.run(sqlite3, ["-readonly", "-cmd", ".timeout 8000", database, sql])
        #expect(result.status == 0, "\(sql): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func lifecycleCommandsWaitForALongReaderAndLandInOrderOnceItLetsGo() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        let cli = CLI()
        let start = try cli.run(["start", "--source", "trace:" + cli.fixture("bicycle.trace"), "--flush-interval", "0.5"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(try cli.waitForCommitted(100))
        let recorder = try #require(cli.recorderPID)
        let database = cli.dataDirectory + "/capture.sqlite"
        func query(_ sql: String) throws -> [String] { try Self.query(sql, in: database, with: sqlite3) }
        let events = "SELECT type || coalesce(':' || value, '') FROM event WHERE measurement_id = 1 ORDER BY id"
        #expect(try query(events) == ["16", "20:BICYCLE"])

        // A reader holding the store (one read transaction) well past the busy timeout.
        let hold = Self.busyTimeout + 14
        let reader = try Subprocess(
            [database, "BEGIN", "SELECT count(*) FROM event", ".shell sleep \(Int(hold))", "COMMIT"], executable: sqlite3)
        defer { reader.stop(includingChildren: true) }
        let held = Date()
        usleep(1_000_000)
        reader.noteChildren()

        let pause = try cli.run(["pause"])
        #expect(pause.status == 0, "\(pause.stderr)")
        usleep(1_500_000)
        #expect(try cli.json(["resume"])["track"] as? Int == 2)
        usleep(1_000_000)
        let walking = try cli.run(["modality", "walking"])
        #expect(walking.status == 0, "\(walking.stderr)")
        while Date().timeIntervalSince(held) < Self.busyTimeout + 1.5 { usleep(100_000) }

        // Past the busy timeout, the reader still there: the recording goes on, the events wait.
        #expect(Subprocess.isAlive(reader.pid))
        #expect(Subprocess.isAlive(recorder))
        #expect(try query(events) == ["16", "20:BICYCLE"])
        let status = try cli.json(["status"])
        #expect(status["state"] as? String == "capturing" && status["track"] as? Int == 2, "\(status)")
        #expect((status["recorder"] as? [String: Any])?["eventsWaiting"] as? Bool == true, "\(status)")
        #expect(try cli.run(["status"]).stdout.contains("\n  waiting    lifecycle events wait in the flush log"))
        // Sent while the reader holds the store; answered once the stop is durable in the flush
        // log, it returns when the recorder exits (10 s at most) or the reader lets go.
        #expect(Subprocess.isAlive(reader.pid), "the reader let go before the stop: the test proves less than it says")
        let stop = try cli.run(["stop"])
        #expect(stop.status == 0, "\(stop.stderr)")

        // The reader lets go: the recorder commits what waited, then exits.
        #expect(reader.wait() == 0)
        #expect(cli.waitFor(30) { !Subprocess.isAlive(recorder) })
        #expect(try query(events) == ["16", "20:BICYCLE", "19", "18", "20:WALKING", "17"])
        #expect(try query("SELECT status, track_count FROM measurement WHERE id = 1") == ["finished|2"])
        // The samples around the events: track 1 ends by the pause, track 2 begins at the resume.
        let times = try query(
            """
            SELECT (SELECT max(last_ts) FROM sensor_batch WHERE track = 1) <= (SELECT ts FROM event WHERE type = 19),
                   (SELECT min(first_ts) FROM sensor_batch WHERE track = 2) >= (SELECT ts FROM event WHERE type = 18),
                   (SELECT count(*) FROM sensor_batch WHERE track = 2) > 0,
                   (SELECT max(last_ts) FROM sensor_batch) <= (SELECT ts FROM event WHERE type = 17)
            """)
        #expect(times == ["1|1|1|1"])
        #expect(try query("PRAGMA integrity_check") == ["ok"])
        // Nothing left for another process to apply.
        let store = try Store(directory: cli.dataDirectory)
        #expect(try query(events).count == 6)
        #expect(try store.measurement(1).status == .finished)
        #expect(!(try cli.run(["status"]).stdout.contains("lifecycle events wait")))
    }
}

/// The same with `ride.detect: auto` (issue 28, item 5): `capture stop` ends the ride and motion
/// begins the next while another process reads for longer than the busy timeout; the recorder
/// goes on recording, and once the reader lets go both rides are in the store, each its own.
extension BusyStoreEndToEndTests {
    @Test func aRidesEndAndTheNextRidesBeginWaitForALongReaderAndLandAsTwoRides() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        let box = try RideEndToEndTests.Box()
        defer { box.end() }
        let (cli, terminal, world, recorder) = (box.cli, box.terminal, box.world, box.recorder)
        func play(_ seconds: Double, moving: Bool) {
            world.moving.store(moving, ordering: .relaxed)
            for _ in 0..<Int(seconds * 4) {
                _ = terminal.write(RideEndToEndTests.epoch(world))
                usleep(250_000)
            }
        }
        let database = cli.dataDirectory + "/capture.sqlite"
        func query(_ sql: String) throws -> [String] { try Self.query(sql, in: database, with: sqlite3) }
        let measurements = "SELECT id || ':' || status FROM measurement ORDER BY id"
        play(3, moving: false)
        play(8, moving: true)
        // Ride 1 began under its reserved id and went in at once: the store was free.
        #expect(try query(measurements) == ["1:capturing"])

        // A reader holding the store (one read transaction) well past the busy timeout.
        // Its read waits out a commit under way, as any reader does.
        let reader = try Subprocess(
            ["-cmd", ".timeout 5000", database, "BEGIN", "SELECT count(*) FROM event", ".shell sleep \(Int(Self.busyTimeout + 14))",
             "COMMIT"],
            executable: sqlite3)
        defer { reader.stop(includingChildren: true) }
        let held = Date()
        play(1, moving: true)
        reader.noteChildren()
        play(2, moving: false)
        // `capture stop` ends ride 1, not the recorder; answered once its end is durable.
        let stop = try cli.run(["stop", "--json"])
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout.contains("\"measurement\" : 1"), "\(stop.stdout)")
        // Motion begins ride 2 while the end of ride 1 still waits.
        var begun = false
        for _ in 0..<30 where !begun {
            play(0.5, moving: true)
            // The recorder's measurement: the database has not got it yet.
            begun = (try cli.json(["status"])["recorder"] as? [String: Any])?["measurement"] as? Int == 2
        }
        #expect(begun, "ride 2 did not begin")
        while Date().timeIntervalSince(held) < Self.busyTimeout + 1.5 { play(0.25, moving: true) }
        let journals = [1, 2].map { (try? String(contentsOfFile: cli.dataDirectory + "/attachments/\($0)/recorder.jsonl", encoding: .utf8)) ?? "" }

        // Past the busy timeout, the reader still there: the recorder records, the events wait.
        #expect(Subprocess.isAlive(reader.pid), "the reader let go early: the test proves less than it says")
        #expect(Subprocess.isAlive(recorder.pid))
        #expect(try query(measurements) == ["1:capturing"])
        let live = try cli.json(["status"])["recorder"] as? [String: Any] ?? [:]
        #expect(live["measurement"] as? Int == 2 && live["state"] as? String == "capturing", "\(live)")
        #expect(live["eventsWaiting"] as? Bool == true, "\(journals)")

        // The reader lets go, the ride goes on: what waited goes in, in order.
        while Subprocess.isAlive(reader.pid) { play(0.5, moving: true) }
        #expect(reader.wait() == 0)
        var stored: [String] = []
        for _ in 0..<20 where stored != ["1:finished", "2:capturing"] {
            play(0.5, moving: true)
            stored = try query(measurements)
        }
        #expect(stored == ["1:finished", "2:capturing"])
        // The recorder's end (as `systemctl stop`) ends ride 2.
        kill(recorder.pid, SIGTERM)
        #expect(recorder.wait() == 0, "\(recorder.stderr)")

        #expect(try query(measurements) == ["1:finished", "2:finished"])
        let events = "SELECT group_concat(type, ',') FROM (SELECT type FROM event WHERE measurement_id = %d ORDER BY id)"
        for id in [1, 2] {
            #expect(try query(String(format: events, id)) == ["16,20,17"], "measurement \(id)")
            // Each ride's samples and fixes between its start and its stop.
            let inside = try query(
                """
                SELECT (SELECT count(*) FROM location WHERE measurement_id = \(id)) > 5,
                       (SELECT count(*) FROM sensor_batch WHERE measurement_id = \(id)) > 0,
                       (SELECT min(first_ts) FROM sensor_batch WHERE measurement_id = \(id)) >= m.start_ts,
                       (SELECT max(last_ts) FROM sensor_batch WHERE measurement_id = \(id)) <= m.end_ts
                FROM measurement m WHERE m.id = \(id)
                """)
            #expect(inside == ["1|1|1|1"], "measurement \(id)")
        }
        // Separate: ride 2 begins after ride 1 ended.
        #expect(try query("SELECT (SELECT end_ts FROM measurement WHERE id = 1) <= (SELECT start_ts FROM measurement WHERE id = 2)") == ["1"])
        #expect(try query("PRAGMA integrity_check") == ["ok"])
        let metrics = try cli.run(["metrics"]).stdout
        #expect(metrics.contains("capture_rides_total{event=\"begun\",by=\"motion\"} 2"), "\(metrics)")
        #expect(metrics.contains("capture_rides_total{event=\"ended\",by=\"command\"} 2"), "\(metrics)")
        #expect(FileManager.default.fileExists(atPath: cli.dataDirectory + "/attachments/2/recorder.jsonl"))
    }
}
