import CaptureCore
import Testing

@testable import CaptureRecorder
@testable import CaptureStorage

/// A recorder starting after a power cut while another process holds the database (issue 28,
/// item 5), event by event: the interrupted measurement is worked out from the database and what
/// the dead recorder left in the flush log, and its recovery is staged after those records, so a
/// busy store keeps it waiting instead of ending the start. No threads, no files, no clocks.
@Suite("Recovery at start with a busy store, event by event")
struct RecoveryStateTests: StateMachineSuite {
    static let busy = StoreError.busy(path: "/data/capture.sqlite")

    /// Measurement 4 as the database has it: capturing on track 1 since t0, data until t0 + 5 s.
    static let stored = (
        Machine.Interrupted(
            id: 4, startTime: t0, lifecycle: Lifecycle(restoring: .capturing(track: 1), modality: .car),
            committedEnd: t0 + 5000, correction: nil),
        sources: "iio:iio:device0"
    )

    static func record(_ sequence: UInt64, of measurement: Int64, _ flush: Flush, steps: [FlushLog.Step] = []) throws
        -> FlushLog.Record
    {
        FlushLog.Record(sequence: sequence, measurement: measurement, flush: try EncodedFlush(flush), steps: steps)
    }

    /// Ten accelerometer samples from `time` on `track`.
    static func samples(_ engine: inout Recording, from time: Int64) -> Flush {
        for index in 0..<10 {
            _ = engine.ingest(.motion(.accelerometer, MotionSample(timestamp: time + Int64(index) * 10, x: 0, y: 0, z: 9.81)))
        }
        return engine.takeFlush()
    }

    @Test func whatTheLogHoldsMovesTheCommittedEndAndTheLifecycleAndAStopLeavesNothingOpen() throws {
        var engine = Recording(lifecycle: Self.stored.0.lifecycle)
        var records = [try Self.record(7, of: 4, Self.samples(&engine, from: Self.t0 + 6000))]
        var found = try #require(Machine.Interrupted.after(records, stored: Self.stored))
        #expect(found.0.committedEnd == Self.t0 + 6090 && found.sources == "iio:iio:device0")
        // A pause and a resume waiting there: track 2, ending with the resume.
        records.append(try Self.record(8, of: 4, try engine.apply(.pause, at: Self.t0 + 7000)))
        records.append(try Self.record(9, of: 4, try engine.apply(.resume, at: Self.t0 + 8000)))
        found = try #require(Machine.Interrupted.after(records, stored: Self.stored))
        #expect(found.0.lifecycle.state == .capturing(track: 2) && found.0.committedEnd == Self.t0 + 8000)
        // Records of another measurement (one deleted meanwhile) change nothing.
        var other = Recording(lifecycle: Lifecycle(restoring: .capturing(track: 1), modality: .car))
        records.append(try Self.record(10, of: 3, Self.samples(&other, from: Self.t0 + 9000)))
        #expect(try #require(Machine.Interrupted.after(records, stored: Self.stored)).0 == found.0)
        // A move onto GNSS time moves its times with what is stored.
        let moved = records + [try Self.record(11, of: 4, Flush(track: 0, state: .idle, modality: nil), steps: [.moveToGNSSTime(correction: 500, motion: true)])]
        let onGNSS = try #require(Machine.Interrupted.after(moved, stored: Self.stored)).0
        #expect(onGNSS.committedEnd == Self.t0 + 8500 && onGNSS.startTime == Self.t0 + 500 && onGNSS.correction == 500)
        // Its stop waiting there (`capture stop`, a ride's end): nothing is open.
        records.append(try Self.record(12, of: 4, try engine.apply(.stop, at: Self.t0 + 9000), steps: [.countRide(.endedByCommand)]))
        #expect(Machine.Interrupted.after(records, stored: Self.stored) == nil)
        // Nothing in the database or the log: nothing open.
        #expect(Machine.Interrupted.after([], stored: nil) == nil)
    }

    @Test func aRideBegunInTheLogIsTheOpenMeasurement() throws {
        var first = Recording(lifecycle: Self.stored.0.lifecycle)
        var second = Recording()
        let records = [
            try Self.record(7, of: 4, try first.apply(.stop, at: Self.t0 + 6000), steps: [.countRide(.endedByMotion)]),
            try Self.record(
                8, of: 5, try second.apply(.start(.bicycle), at: Self.t0 + 7000),
                steps: [.begin(sources: "iio:iio:device0\nnmea:/dev/ttyACM0", journal: "recorder.jsonl"), .countRide(.begunByMotion)]),
            try Self.record(9, of: 5, Self.samples(&second, from: Self.t0 + 7100)),
        ]
        let found = try #require(Machine.Interrupted.after(records, stored: Self.stored))
        #expect(found.0 == Machine.Interrupted(
            id: 5, startTime: Self.t0 + 7000, lifecycle: Lifecycle(restoring: .capturing(track: 1), modality: .bicycle),
            committedEnd: Self.t0 + 7190, correction: nil))
        #expect(found.sources == "iio:iio:device0\nnmea:/dev/ttyACM0")
        // Discarded there (it moved too little): nothing open.
        let discarded = records + [
            try Self.record(10, of: 5, try second.apply(.stop, at: Self.t0 + 8000), steps: [.countRide(.endedByMotion), .discard])
        ]
        #expect(Machine.Interrupted.after(discarded, stored: Self.stored) == nil)
        // Its id is taken though the database still counts it reserved.
        var machine = Machine(sources: [.init(name: "iio")], flushInterval: 1000, ride: RideSettings(detect: .auto))
        machine.leftInLog(records, reserved: [5, 6])
        #expect(machine.reservations.take() == 6)
        // They wait for a busy store: armed, a flush tries again (giving way at once), no ids
        // reserved meanwhile.
        #expect(machine.eventsWaiting)
        _ = machine.arm(modality: .bicycle, at: Self.t0 + 9_000)
        #expect(machine.flushDue(at: Self.t0 + 10_000) == [.commitStaged(patience: StagedCommits.patience)])
    }

    @Test func aContinuedMeasurementsRecoveryWaitsForABusyStoreAndTheRecordingGoesOn() throws {
        var machine = Machine(sources: [.init(name: "iio")], flushInterval: 1000)
        var engine = Recording(lifecycle: Self.stored.0.lifecycle)
        machine.leftInLog([try Self.record(7, of: 4, Self.samples(&engine, from: Self.t0 + 4000))], reserved: [])
        let actions = try machine.recover(Self.stored.0, at: Self.t0 + 60_000)
        // Staged (after what the log holds), then committed: what the log holds waited for a
        // busy store already, so the try gives way at once.
        #expect(Self.stagedFlushes(actions).map { $0.events.map(\.type) } == [[.lifecyclePause], [.lifecycleResume]])
        #expect(actions.last == .commitStaged(patience: StagedCommits.patience))
        #expect(!actions.contains { if case .endInterrupted = $0 { true } else { false } })
        // Another process holds the store: the recovery waits in the log, durable.
        #expect(machine.storeFailed(Self.busy, during: .commitStaged(patience: 2)) == .wait)
        #expect(machine.eventsWaiting && machine.failure == nil)
        // Recording goes on, on track 2; a flush tries again, giving way at once.
        let samples = (0..<5).map { Sample.motion(.accelerometer, MotionSample(timestamp: Self.t0 + 60_100 + Int64($0), x: 0, y: 0, z: 9.81)) }
        _ = machine.take([(samples, Self.t0 + 60_200)], dropped: 0, capacity: 10, from: 0)
        let flush = machine.flushDue(at: Self.t0 + 61_000)
        #expect(Self.stagedFlushes(flush).first?.motion.accelerometer.count == 5)
        #expect(Self.stagedFlushes(flush).first?.track == 2)
        #expect(flush.contains(.commitStaged(patience: StagedCommits.patience)))
        machine.caughtUp()
        #expect(!machine.eventsWaiting && machine.state == .recording(measurement: 4))
    }

    @Test func anOlderInterruptedMeasurementIsStoppedAtItsCommittedEndAndCountedInOneRecordThenANewOneBegins() throws {
        var machine = Machine(sources: [.init(name: "iio")], flushInterval: 1000)
        let actions = try machine.endInterrupted(Self.stored.0, at: Self.t0 + 600_000)
        guard case .endInterrupted(let stop, 4, Self.t0 + 5000, Self.t0 + 600_000, false)? = actions.first else {
            Issue.record("expected measurement 4 to be ended, got \(actions)")
            return
        }
        #expect(stop.events.map(\.type) == [.lifecycleStop] && stop.events.first?.timestamp == Self.t0 + 5000)
        #expect(stop.state == .finished(tracks: 1))
        #expect(actions.last == .commitStaged(patience: StagedCommits.lifecyclePatience))
        #expect(machine.storeFailed(Self.busy, during: .commitStaged(patience: 2)) == .wait)
        // The machine itself is untouched: a new measurement begins (or the ride rules arm).
        #expect(machine.state == .idle)
        let begin = try machine.start(modality: .car, at: Self.t0 + 600_001)
        guard case .begin(let flush, _)? = begin.first else {
            Issue.record("expected a begin, got \(begin)")
            return
        }
        #expect(flush.events.map(\.type) == [.lifecycleStart, .modalityTypeChange])
        var armed = Machine(sources: [.init(name: "iio")], flushInterval: 1000, ride: RideSettings(detect: .auto))
        _ = try armed.endInterrupted(Self.stored.0, at: Self.t0 + 600_000)
        _ = armed.arm(modality: .car, at: Self.t0 + 600_001)
        #expect(armed.state == .armed)
    }
}
