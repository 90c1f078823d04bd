import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The box boots after a power cut while another process reads the store for longer than the
/// busy timeout (issue 28, item 5): the recorder (`capture start --foreground
/// --continue-interrupted`, as capture-record.service runs it) starts and records at once, and
/// the recovery of the interrupted measurement (after what its dead recorder left in the flush
/// log) lands in order once the reader lets go.
extension BusyStoreEndToEndTests {
    /// A box recording (fake accelerometer, NMEA receiver) with a reader on its store.
    struct Boot {
        let box: RideEndToEndTests.Box
        let sqlite3: String
        var database: String { box.cli.dataDirectory + "/capture.sqlite" }

        func query(_ sql: String) throws -> [String] { try BusyStoreEndToEndTests.query(sql, in: database, with: sqlite3) }

        func play(_ seconds: Double, moving: Bool = true) {
            box.world.moving.store(moving, ordering: .relaxed)
            for _ in 0..<Int(seconds * 4) {
                _ = box.terminal.write(RideEndToEndTests.epoch(box.world))
                usleep(250_000)
            }
        }

        /// An `sqlite3` holding one read transaction for `seconds`.
        func reader(_ seconds: Int) throws -> Subprocess {
            try Subprocess(
                ["-cmd", ".timeout 5000", database, "BEGIN", "SELECT count(*) FROM event", ".shell sleep \(seconds)", "COMMIT"],
                executable: sqlite3)
        }

        /// The power cut: the recorder dies, what it staged stays in the flush log (synced).
        func cut() {
            kill(box.recorder.pid, SIGKILL)
            _ = box.recorder.wait()
        }

        /// The recorder's own view (`capture status --json`), its samples captured so far.
        func live() throws -> (recorder: [String: Any], captured: Int) {
            let recorder = try box.cli.json(["status"])["recorder"] as? [String: Any] ?? [:]
            let sensors = recorder["sensors"] as? [[String: Any]] ?? []
            return (recorder, sensors.first { $0["sensor"] as? String == "acc" }?["captured"] as? Int ?? 0)
        }

        /// Past `seconds` after `since`, the reader still there: the recorder is alive and
        /// captures more as time goes on.
        func recordsWhileHeld(_ reader: Subprocess, since: Date, seconds: Double) throws -> [String: Any] {
            let before = try live().captured
            while Date().timeIntervalSince(since) < seconds { play(0.5) }
            #expect(Subprocess.isAlive(reader.pid), "the reader let go early: the test proves less than it says")
            #expect(Subprocess.isAlive(box.recorder.pid), "\(box.recorder.stderr)")
            let (recorder, after) = try live()
            #expect(after > before, "captured \(before), then \(after)")
            #expect(recorder["eventsWaiting"] as? Bool == true, "\(recorder)")
            return recorder
        }
    }

    @Test func aRecorderBootingWhileALongReaderHoldsTheStoreContinuesTheInterruptedMeasurementAndItsRecoveryLandsInOrder() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        let box = try RideEndToEndTests.Box(["CAPTURE_RIDE_DETECT=off"])
        defer { box.end() }
        let boot = Boot(box: box, sqlite3: sqlite3)
        let events = "SELECT group_concat(type, ',') FROM (SELECT type FROM event WHERE measurement_id = 1 ORDER BY id)"
        boot.play(3)
        #expect(try boot.query("SELECT id || ':' || status FROM measurement") == ["1:capturing"])

        let reader = try boot.reader(Int(Self.busyTimeout) + 30)
        defer { reader.stop(includingChildren: true) }
        boot.play(1)
        reader.noteChildren()
        // A pause and a resume that wait in the flush log, then the power cut.
        #expect(try box.cli.run(["pause"]).status == 0)
        boot.play(1)
        #expect(try box.cli.json(["resume"])["track"] as? Int == 2)
        boot.play(2)
        boot.cut()
        #expect(try boot.query(events) == ["16,20"])

        // The box boots; the reader still holds the store.
        try box.boot()
        let booted = Date()
        let recorder = try boot.recordsWhileHeld(reader, since: booted, seconds: Self.busyTimeout + 1.5)
        #expect(recorder["measurement"] as? Int == 1 && recorder["track"] as? Int == 3, "\(recorder)")
        #expect(try boot.query(events) == ["16,20"])

        // The reader lets go: the dead recorder's pause and resume, then the recovery's.
        while Subprocess.isAlive(reader.pid) { boot.play(0.5) }
        #expect(reader.wait() == 0)
        var stored: [String] = []
        for _ in 0..<20 where stored != ["16,20,19,18,19,18"] {
            boot.play(0.5)
            stored = try boot.query(events)
        }
        #expect(stored == ["16,20,19,18,19,18"])
        kill(box.recorder.pid, SIGTERM)
        #expect(box.recorder.wait() == 0, "\(box.recorder.stderr)")
        #expect(try boot.query(events) == ["16,20,19,18,19,18,17"])
        #expect(try boot.query("SELECT status, track_count FROM measurement") == ["finished|3"])
        // Each track's samples inside it: track 2 (the dead recorder's, from the log) ends by the
        // recovery's pause, where its committed data ends; track 3 begins at its resume.
        let tracks = try boot.query(
            """
            SELECT (SELECT count(*) FROM sensor_batch WHERE track = 2) > 0, (SELECT count(*) FROM sensor_batch WHERE track = 3) > 0,
                   (SELECT max(last_ts) FROM sensor_batch WHERE track = 2) <= (SELECT ts FROM event WHERE type = 19 ORDER BY id DESC LIMIT 1),
                   (SELECT min(first_ts) FROM sensor_batch WHERE track = 3) >= (SELECT ts FROM event WHERE type = 18 ORDER BY id DESC LIMIT 1)
            """)
        #expect(tracks == ["1|1|1|1"])
        #expect(try boot.query("PRAGMA integrity_check") == ["ok"])
    }

    @Test func aRecorderBootingWhileALongReaderHoldsTheStoreEndsAnOlderRideAndRecordsTheNext() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        let box = try RideEndToEndTests.Box()
        defer { box.end() }
        let boot = Boot(box: box, sqlite3: sqlite3)
        let measurements = "SELECT id || ':' || status FROM measurement ORDER BY id"
        boot.play(3, moving: false)
        boot.play(8)
        #expect(try boot.query(measurements) == ["1:capturing"])

        let reader = try boot.reader(Int(Self.busyTimeout) + 30)
        defer { reader.stop(includingChildren: true) }
        boot.play(1)
        reader.noteChildren()
        boot.play(2)
        boot.cut()
        // Off for longer than ride.resume_within (1 s here): ride 1 ends by the cut.
        usleep(1_500_000)
        try box.boot(["CAPTURE_RIDE_RESUME_WITHIN=1s"])
        let booted = Date()
        // Ride 2 begins under the id the dead recorder reserved, the store still held.
        let recorder = try boot.recordsWhileHeld(reader, since: booted, seconds: Self.busyTimeout + 1.5)
        #expect(recorder["measurement"] as? Int == 2 && recorder["state"] as? String == "capturing", "\(recorder)")
        #expect(try boot.query(measurements) == ["1:capturing"])

        while Subprocess.isAlive(reader.pid) { boot.play(0.5) }
        #expect(reader.wait() == 0)
        var stored: [String] = []
        for _ in 0..<20 where stored != ["1:finished", "2:capturing"] {
            boot.play(0.5)
            stored = try boot.query(measurements)
        }
        #expect(stored == ["1:finished", "2:capturing"])
        kill(box.recorder.pid, SIGTERM)
        #expect(box.recorder.wait() == 0, "\(box.recorder.stderr)")
        #expect(try boot.query(measurements) == ["1:finished", "2:finished"])
        // Ride 1 ends where its committed data (the dead recorder's log included) ends; ride 2
        // begins after it.
        let ends = try boot.query(
            """
            SELECT m.end_ts = (SELECT max(last_ts) FROM sensor_batch WHERE measurement_id = 1) OR
                   m.end_ts = (SELECT max(ts) FROM location WHERE measurement_id = 1),
                   m.end_ts <= (SELECT start_ts FROM measurement WHERE id = 2)
            FROM measurement m WHERE m.id = 1
            """)
        #expect(ends == ["1|1"])
        let metrics = try box.cli.run(["metrics"]).stdout
        #expect(metrics.contains("capture_rides_total{event=\"ended\",by=\"power\"} 1"), "\(metrics)")
        #expect(metrics.contains("capture_rides_total{event=\"begun\",by=\"motion\"} 2"), "\(metrics)")
        let journal = try String(contentsOfFile: box.cli.dataDirectory + "/attachments/1/recorder.jsonl", encoding: .utf8)
        #expect(journal.contains("\"by\":\"interruption\""), "\(journal)")
        #expect(try boot.query("PRAGMA integrity_check") == ["ok"])
    }
}
