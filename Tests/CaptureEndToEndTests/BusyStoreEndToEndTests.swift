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

    @Test func lifecycleCommandsWaitForALongReaderAndLandInOrderOnceItLetsGo() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        let cli = CLI()
        let start = try cli.run(["start", "--source", "trace:" + cli.fixture("bicycle.trace"), "--flush-interval", "0.5"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(try cli.waitForCommitted(100))
        let recorder = try #require(cli.recorderPID)
        let database = cli.dataDirectory + "/capture.sqlite"
        /// The database as it stands, read without applying the flush log (as `capture` would).
        func query(_ sql: String) throws -> [String] {
            let result = try Program.run(sqlite3, ["-readonly", "-cmd", ".timeout 8000", database, sql])
            #expect(result.status == 0, "\(sql): \(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
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
