import CaptureCore
import CaptureSensors
import Foundation
import GRDB
import Testing

@testable import CaptureRecorder
@testable import CaptureStorage

/// A recorder starting after a power cut while another process reads the database (issue 28,
/// item 5): it starts without the database, its recovery waits in the flush log after what the
/// dead recorder left there, and a cut after any step leaves a state the next boot takes exactly
/// (nothing committed lost, nothing applied twice). In process: the recorders' store, flush log
/// and state value, no threads of theirs (their actions are performed on the test's).
@Suite(.serialized) final class RecoveryCutTests {
    /// Where the dead recorder's times begin: a minute ago.
    let t0 = WallClock.now() - 60_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-recovery-\(UUID().uuidString)").path
    /// Another process's connection: its read transaction holds the store.
    let reader: DatabaseQueue
    /// The copies of the data directory made at each cut, in order.
    var cuts: [String] = []

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        reader = try DatabaseQueue(path: directory + "/capture.sqlite")
    }

    deinit {
        for path in cuts + [directory] { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Measurement 1 as a dead recorder left it: begun (with its ride counted, under its reserved
    /// id, as `ride.detect: auto` does), 100 accelerometer samples in the database, then, while
    /// `reader` held the database, 50 more, a pause, a resume and 30 more in the flush log only.
    /// Returns when its last sample was taken. Its times: the last minute (`t0`).
    func deadRecorder(holding reader: Database) throws -> Int64 {
        var engine = Recording()
        try #require(try Store(directory: directory).reserveMeasurementIDs(keeping: 2) == [1, 2])
        let staged = try StagedCommits(store: try Store(directory: directory), directory: directory)
        try staged.commit(
            try engine.apply(.start(.bicycle), at: t0 + 1_000), steps: [.begin(sources: "feed:test", journal: nil), .countRide(.begunByMotion)],
            to: 1, now: t0 + 1_000)
        try staged.commit(Self.samples(&engine, 100, from: t0 + 1_000), to: 1, now: t0 + 2_000)
        try staged.commitStaged(patience: 1)
        _ = try Int.fetchOne(reader, sql: "SELECT count(*) FROM measurement")
        try staged.commit(Self.samples(&engine, 50, from: t0 + 3_000), to: 1, now: t0 + 3_000)
        try staged.commit(try engine.apply(.pause, at: t0 + 4_000), to: 1, now: t0 + 4_000)
        try staged.commit(try engine.apply(.resume, at: t0 + 5_000), to: 1, now: t0 + 5_000)
        try staged.commit(Self.samples(&engine, 30, from: t0 + 5_000), to: 1, now: t0 + 6_000)
        #expect(throws: StoreError.busy(path: staged.store.path)) { try staged.commitStaged(patience: 0.1) }
        return t0 + 5_290
    }

    static func samples(_ engine: inout Recording, _ count: Int, from time: Int64) -> Flush {
        for index in 0..<count {
            _ = engine.ingest(.motion(.accelerometer, MotionSample(timestamp: time + Int64(index) * 10, x: 0, y: 0, z: 9.81)))
        }
        return engine.takeFlush()
    }

    /// The data directory as a power cut now would leave it (the store and the log are synced at
    /// every step), copied for a boot.
    func cut() throws {
        let copy = directory + "-cut\(cuts.count)"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for name in ["capture.sqlite", FlushLog.fileName] {
            try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: copy + "/" + name)
        }
        cuts.append(copy)
    }

    /// Measurement 1 as a boot finds it: opening the store applies what the log holds. Booted
    /// twice, to see that nothing is applied twice.
    static func booted(_ copy: String) throws -> (events: [EventType], accelerometer: Int, tracks: Int, status: MeasurementState, power: Int) {
        _ = try Store(directory: copy)
        let store = try Store(directory: copy)
        #expect(try store.integrityCheck() == "ok")
        return (
            try store.events(of: 1).map(\.type), try store.counts(of: 1).accelerometer, try store.measurement(1).trackCount,
            try store.measurement(1).status, try store.rideCounts()[.endedByPower] ?? 0
        )
    }

    func recorder() throws -> Recorder {
        Recorder(directory: directory, store: try Store(directory: directory), sources: [FeedSource()], flushInterval: 60_000)
    }

    @Test func aContinuedMeasurementsRecoveryWaitsForTheReaderAndACutAtEachStepBootsExactly() throws {
        let started: [EventType] = [.lifecycleStart, .modalityTypeChange, .lifecyclePause, .lifecycleResume]
        var live: Recorder?
        try reader.read { db in
            let end = try deadRecorder(holding: db)
            try cut()
            // The new recorder starts while the reader still holds the database.
            let recorder = try self.recorder()
            live = recorder
            #expect(try recorder.recoverInterrupted() == 1)
            #expect(recorder.machine.withLock { $0.eventsWaiting && $0.failure == nil })
            #expect(recorder.machine.withLock { $0.state } == .recording(measurement: 1))
            // Paused where the committed data ends, counting what waited in the log.
            let recovery = try #require(recorder.lane.withLock { $0.staged?.records.suffix(2) })
            #expect(recovery.map { $0.flush.flush.events.map(\.timestamp) }.first == [end])
            try cut()
            // It records on track 3.
            let now = WallClock.now()
            recorder.handle { machine in
                machine.take([(acceleration(20, from: now + 10), now + 30)], dropped: 0, capacity: 100, from: 0)
                    + machine.flushDue(at: now + 40)
            }
            #expect(!recorder.performQueued())
            try cut()
            // Nothing of it reached the database meanwhile.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM event") == 2)
        }
        // Each cut boots to exactly what was durable at it.
        let expected: [([EventType], Int, Int)] = [
            (started, 180, 2), (started + [.lifecyclePause, .lifecycleResume], 180, 3),
            (started + [.lifecyclePause, .lifecycleResume], 200, 3),
        ]
        for (index, copy) in cuts.enumerated() {
            let boot = try Self.booted(copy)
            #expect(boot.events == expected[index].0, "cut \(index)")
            #expect(boot.accelerometer == expected[index].1 && boot.tracks == expected[index].2, "cut \(index)")
            #expect(boot.status == .capturing && boot.power == 0, "cut \(index)")
        }
        // The reader let go: what waited goes in, in order, as the last cut booted it.
        let recorder = try #require(live)
        recorder.settleWaitingEvents()
        #expect(!recorder.machine.withLock { $0.eventsWaiting })
        #expect(try recorder.store.events(of: 1).map(\.type) == expected[2].0)
        #expect(try recorder.store.counts(of: 1).accelerometer == 200 && recorder.store.counts(of: 1, track: 3).accelerometer == 20)
        #expect(try recorder.store.integrityCheck() == "ok")
    }

    @Test func anOlderMeasurementsEndWaitsForTheReaderAndTheNextRideHasAnIDAtOnce() throws {
        var live: Recorder?
        var end: Int64 = 0
        try reader.read { db in
            end = try deadRecorder(holding: db)
            try cut()
            let recorder = try self.recorder()
            live = recorder
            #expect(try recorder.endInterrupted() == 1)
            try cut()
            // Armed for the next ride: the id the dead recorder reserved serves, read only.
            try recorder.arm(modality: .bicycle)
            #expect(recorder.machine.withLock { $0.reservations.ids } == [2])
            #expect(recorder.machine.withLock { $0.state == .armed && $0.eventsWaiting && $0.failure == nil })
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM event") == 2)
        }
        let recorded: [EventType] = [.lifecycleStart, .modalityTypeChange, .lifecyclePause, .lifecycleResume]
        let before = try Self.booted(cuts[0])
        #expect(before.events == recorded && before.accelerometer == 180 && before.status == .capturing && before.power == 0)
        // Stopped where its committed data ends, counted as ended by power once, booted twice.
        let after = try Self.booted(cuts[1])
        #expect(after.events == recorded + [.lifecycleStop] && after.accelerometer == 180 && after.status == .finished)
        #expect(after.power == 1)
        #expect(try Store(directory: cuts[1]).measurement(1).endTime == end)
        // The reader let go: the same in the live store.
        let recorder = try #require(live)
        recorder.settleWaitingEvents()
        #expect(try recorder.store.events(of: 1).map(\.type) == recorded + [.lifecycleStop])
        #expect(try recorder.store.measurement(1).endTime == end && recorder.store.rideCounts()[.endedByPower] == 1)
        #expect(try recorder.store.reserveMeasurementIDs(keeping: 2) == [2, 3])
    }

    @Test func aStopWaitingInTheLogLeavesNothingToRecoverThoughTheDatabaseHasItOpen() throws {
        try reader.read { db in
            _ = try deadRecorder(holding: db)
            do {
                // The next recorder staged `capture stop` and died (its log's lock goes with it).
                let staged = try StagedCommits(store: try Store(directory: directory), directory: directory)
                var engine = Recording(lifecycle: Lifecycle(restoring: .capturing(track: 2), modality: .bicycle))
                try staged.commit(try engine.apply(.stop, at: t0 + 6_000), steps: [.countRide(.endedByCommand)], to: 1, now: t0 + 6_000)
                #expect(throws: StoreError.busy(path: staged.store.path)) { try staged.commitStaged(patience: 0.1) }
            }
            try cut()
            let store = try Store(directory: directory)
            #expect(try store.openMeasurement()?.id == 1)
            #expect(try Recovery.interrupted(store: store, directory: directory) == nil)
            let recorder = try self.recorder()
            #expect(try recorder.endInterrupted() == nil)
            try recorder.arm(modality: .bicycle)
            #expect(recorder.machine.withLock { $0.state == .armed && $0.reservations.ids == [2] })
        }
        let booted = try Self.booted(cuts[0])
        #expect(booted.status == .finished && booted.accelerometer == 180 && booted.power == 0)
    }
}
