import CaptureCore
import Foundation
import GRDB
import Glibc
import Testing

@testable import CaptureStorage

/// The flush log and the staged way live capture commits (issue 15.1): a flush of samples is
/// durable in the log, reaches the database with the next event or at a staging limit, and
/// what a dead recorder staged is in the database for the next process to open the store.
@Suite struct FlushLogTests {
    let directory = TemporaryDirectory()

    /// A flush of `count` samples per motion sensor from `time`, one fix with every optional field
    /// (or none) and one pressure sample.
    func samples(_ engine: inout Recording, from time: Int64, count: Int = 100, fullFix: Bool = true) -> Flush {
        for index in 0..<count {
            let at = time + Int64(index) * 10
            for sensor in MotionSensor.allCases {
                _ = engine.ingest(.motion(sensor, MotionSample(timestamp: at, x: 0.01 * Double(index), y: -1.5, z: 9.81)))
            }
        }
        let fix =
            fullFix
            ? Fix(
                timestamp: time, latitude: 51.0504, longitude: 13.7373, altitude: 112.5, horizontalAccuracy: 3.5,
                verticalAccuracy: 5.25, speed: 4.75, course: 271.5, satellites: 9, hdop: 0.9, vdop: 1.25, pdop: 1.5,
                mode: .threeD)
            : Fix(timestamp: time, latitude: -33.8688, longitude: 151.2093)
        _ = engine.ingest(.fix(fix))
        _ = engine.ingest(.pressure(PressureSample(timestamp: time, hectopascals: 1013.25)))
        return engine.takeFlush()
    }

    func started(_ store: Store) throws -> (Int64, Recording) {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: 1_000), sources: "trace:x")
        return (id, engine)
    }

    /// The store and the flush log as a power cut now would leave them (what is on the medium:
    /// both are synced at every step), copied to a directory of their own for a boot.
    func copyAtCut(_ number: Int) throws -> String {
        let copy = directory.path + "-cut\(number)"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for name in ["capture.sqlite", FlushLog.fileName] {
            try FileManager.default.copyItem(atPath: directory.path + "/" + name, toPath: copy + "/" + name)
        }
        return copy
    }

    @Test func aStagedFlushIsDurableInTheLogAndReachesTheDatabaseWithTheNextEvent() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let staged = try StagedCommits(store: store, directory: directory.path)
        try staged.commit(samples(&engine, from: 1_000), to: id, now: 1_000)
        try staged.commit(samples(&engine, from: 2_000, fullFix: false), to: id, now: 2_000)
        #expect(try store.counts(of: id).total == 0)
        #expect(staged.hasStaged)
        #expect(FlushLog.mayHavePending(directory: directory.path, after: try store.appliedLogSequence()))

        try staged.commit(try engine.apply(.pause, at: 3_000), to: id, now: 3_000)
        #expect(staged.eventsStaged == 1)
        try staged.commitStaged(patience: StagedCommits.lifecyclePatience)
        var counts = SampleCounts()
        counts.accelerometer = 200
        counts.gyroscope = 200
        counts.magnetometer = 200
        counts.locations = 2
        counts.pressure = 2
        #expect(try store.counts(of: id) == counts)
        #expect(try store.appliedLogSequence() == 3)
        #expect(!staged.hasStaged && staged.eventsStaged == 0)
        // The pause came after the samples it followed.
        #expect(try store.events(of: id).last?.type == .lifecyclePause)
        #expect(try store.lastTimestamp(of: id) == 3_000)
    }

    @Test func whatADeadRecorderStagedIsInTheDatabaseForTheNextProcessToOpenIt() throws {
        var engine: Recording
        let id: Int64
        var flushes: [Flush] = []
        do {
            let store = try Store(directory: directory.path)
            (id, engine) = try started(store)
            let staged = try StagedCommits(store: store, directory: directory.path)
            for second in 0..<3 {
                let flush = samples(&engine, from: 1_000 + Int64(second) * 1_000, fullFix: second != 1)
                flushes.append(flush)
                try staged.commit(flush, to: id, now: 1_000 + Int64(second) * 1_000)
            }
            #expect(try store.counts(of: id).total == 0)
            // The recorder dies: its lock goes with it, close() is never called.
        }
        let reopened = try Store(directory: directory.path)
        #expect(try reopened.counts(of: id).accelerometer == 300)
        #expect(try reopened.fixes(of: id) == flushes.flatMap(\.fixes))
        #expect(try reopened.pressures(of: id) == flushes.flatMap(\.pressures))
        var stored: [[UInt8]] = []
        try reopened.forEachBatch(of: id, sensor: .gyroscope) { batch in stored.append(batch.data) }
        let sent = try flushes.flatMap { try EncodedFlush($0).batches.filter { $0.sensor == .gyroscope }.map(\.data) }
        #expect(stored == sent)
        // Applied once: opening again adds nothing.
        _ = try Store(directory: directory.path)
        #expect(try reopened.counts(of: id).accelerometer == 300)
    }

    @Test func aLiveRecordersLogIsLeftAlone() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let staged = try StagedCommits(store: store, directory: directory.path)
        try staged.commit(samples(&engine, from: 1_000), to: id, now: 1_000)
        let reader = try Store(directory: directory.path)
        #expect(try reader.counts(of: id).total == 0)
        #expect(try reader.appliedLogSequence() == 0)
        try staged.commitStaged()
        #expect(try reader.counts(of: id).accelerometer == 100)
    }

    @Test func aTornRecordEndsTheLogAndSpentRecordsAreNotAppliedAgain() throws {
        let id: Int64
        do {
            let store = try Store(directory: directory.path)
            var engine: Recording
            (id, engine) = try started(store)
            let staged = try StagedCommits(store: store, directory: directory.path)
            // A first round, moved to the database; then a second from offset 0 again, whose
            // second record is torn, over the first round's stale records.
            for second in 0..<4 { try staged.commit(samples(&engine, from: Int64(second) * 1_000), to: id, now: 0) }
            try staged.commitStaged()
            #expect(try store.counts(of: id).accelerometer == 400)
            for second in 4..<6 { try staged.commit(samples(&engine, from: Int64(second) * 1_000), to: id, now: 0) }
        }
        let path = directory.path + "/" + FlushLog.fileName
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        var byte: UInt8 = 0
        #expect(pread(fd, &byte, 1, 4096 + 100) == 1)
        byte ^= 0xFF
        #expect(pwrite(fd, &byte, 1, 4096 + 100) == 1)
        close(fd)
        let reopened = try Store(directory: directory.path)
        // The first round once, the intact record of the second, neither the torn one nor the
        // stale ones behind it.
        #expect(try reopened.counts(of: id).accelerometer == 500)
        #expect(try reopened.appliedLogSequence() == 5)
    }

    @Test func recordsRoundTripAndDamageIsRefused() throws {
        var engine = Recording()
        _ = try engine.apply(.start(.car), at: 0)
        for fullFix in [true, false] {
            let encoded = try EncodedFlush(samples(&engine, from: 5_000, count: 7, fullFix: fullFix))
            let bytes = FlushLog.encode(encoded, sequence: 42, measurement: 7)
            let payload = Array(bytes[FlushLog.headerSize...])
            let decoded = try #require(FlushLog.decode(payload)?.0)
            #expect(decoded.flush.fixes == encoded.flush.fixes)
            #expect(decoded.flush.pressures == encoded.flush.pressures)
            #expect(decoded.flush.track == encoded.flush.track)
            #expect(decoded.batches.map(\.data) == encoded.batches.map(\.data))
            #expect(decoded.batches.map(\.count) == encoded.batches.map(\.count))
            // Cut short or with a byte too many: refused, not read as something else.
            #expect(FlushLog.decode(Array(payload.dropLast())) == nil)
            #expect(FlushLog.decode(payload + [0]) == nil)
        }
        // A lifecycle command's record (CFL2): its samples, then its events with the state and
        // modality they leave; read only as a record with events.
        _ = samples(&engine, from: 6_000, count: 3)
        for command in [LifecycleCommand.pause, .resume, .modality(.walking), .stop] {
            let flush = try engine.apply(command, at: 7_000)
            let bytes = FlushLog.encode(try EncodedFlush(flush), sequence: 43, measurement: 7)
            #expect(Array(bytes.prefix(4)) == FlushLog.eventsMagic)
            let payload = Array(bytes[FlushLog.headerSize...])
            let decoded = try #require(FlushLog.decode(payload, kind: .events)?.0)
            #expect(decoded.flush.events == flush.events)
            #expect(decoded.flush.state == flush.state && decoded.flush.modality == flush.modality)
            #expect(FlushLog.decode(payload) == nil)
            #expect(FlushLog.decode(Array(payload.dropLast()), kind: .events) == nil)
        }
    }

    /// A lifecycle event that a busy database kept out waits in the log (issue 28, item 5) and
    /// survives a power cut at any step after it: the next process to open the store replays the
    /// samples and the events in the order they were staged.
    ///
    /// The cut: a copy of the database and the log taken after each step is what the medium
    /// holds if the power goes then, because every record was `fdatasync`ed before
    /// ``StagedCommits/commit(_:to:now:)`` returned and the database was not written since its
    /// last commit (the kept-out transaction rolled back before touching it).
    @Test func aLifecycleEventWaitingForABusyDatabaseIsReplayedInOrderAfterACut() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let staged = try StagedCommits(store: store, directory: directory.path)
        let reader = try DatabaseQueue(path: directory.path + "/capture.sqlite")
        var cuts: [String] = []
        func cut() throws { cuts.append(try copyAtCut(cuts.count)) }
        defer { for copy in cuts { try? FileManager.default.removeItem(atPath: copy) } }
        try reader.read { db in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement")
            try staged.commit(samples(&engine, from: 1_000), to: id, now: 1_000)
            try staged.commit(try engine.apply(.pause, at: 2_000), to: id, now: 2_000)
            #expect(throws: StoreError.busy(path: store.path)) { try staged.commitStaged(patience: 0.1) }
            try cut()
            try staged.commit(try engine.apply(.resume, at: 3_000), to: id, now: 3_000)
            try staged.commit(samples(&engine, from: 3_000, count: 50), to: id, now: 3_500)
            try cut()
            try staged.commit(try engine.apply(.modality(.walking), at: 4_000), to: id, now: 4_000)
            try staged.commit(try engine.apply(.stop, at: 5_000), to: id, now: 5_000)
            #expect(throws: StoreError.busy(path: store.path)) { try staged.commitStaged(patience: 0.1) }
            #expect(staged.eventsStaged == 4)
            try cut()
            // Nothing of it reached the database while the reader held it.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM event") == 2)
        }
        let expected: [[EventType]] = [
            [.lifecycleStart, .modalityTypeChange, .lifecyclePause],
            [.lifecycleStart, .modalityTypeChange, .lifecyclePause, .lifecycleResume],
            [.lifecycleStart, .modalityTypeChange, .lifecyclePause, .lifecycleResume, .modalityTypeChange, .lifecycleStop],
        ]
        for (index, copy) in cuts.enumerated() {
            let booted = try Store(directory: copy)
            #expect(try booted.integrityCheck() == "ok")
            #expect(try booted.events(of: id).map(\.type) == expected[index], "cut \(index)")
            // Samples on the track they were taken in: 100 before the pause, 50 after the resume.
            #expect(try booted.counts(of: id, track: 1).accelerometer == 100)
            #expect(try booted.counts(of: id, track: 2).accelerometer == (index == 0 ? 0 : 50))
            let record = try booted.measurement(id)
            #expect(record.status == [MeasurementState.paused, .capturing, .finished][index], "cut \(index)")
            #expect(record.trackCount == (index == 0 ? 1 : 2))
        }
        let last = try Store(directory: cuts[2])
        #expect(try last.events(of: id).last(where: { $0.type == .modalityTypeChange })?.value == "WALKING")
        #expect(try last.measurement(id).endTime == 5_000)
        // The recorder itself: once the reader is gone, the next commit takes everything.
        try staged.commitStaged(patience: StagedCommits.lifecyclePatience)
        #expect(try store.events(of: id).map(\.type) == expected[2])
        #expect(try store.counts(of: id).accelerometer == 150)
    }
}
