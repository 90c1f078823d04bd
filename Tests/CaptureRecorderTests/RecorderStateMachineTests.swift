import CaptureCore
import CaptureSensors
import CaptureStorage
import Testing

@testable import CaptureRecorder

/// The recorder's decisions, event by event: no threads, no files, no clocks (every time is given).
@Suite("The recorder's state machine, event by event")
struct RecorderStateMachineTests: StateMachineSuite {
    static func accelerations(_ count: Int, from time: Int64) -> [Sample] {
        (0..<count).map { .motion(.accelerometer, MotionSample(timestamp: time + Int64($0), x: 0, y: 0, z: 9.81)) }
    }

    /// A machine recording measurement 7 from `t0` with the given sources.
    static func recording(
        _ sources: [Machine.SourceInfo] = [.init(name: "feed")], gnssTime: GNSSTimePolicy = .auto, canPrune: Bool = false,
        tracing: Bool = false
    ) throws -> Machine {
        var machine = Machine(sources: sources, flushInterval: 1000, gnssTime: gnssTime, tracing: tracing, canPrune: canPrune)
        _ = try machine.start(modality: .bicycle, at: t0)
        _ = machine.began(measurement: 7, at: t0)
        return machine
    }

    @Test func aStartBeginsTheMeasurementThenJournalsAndTracesIt() throws {
        var machine = Machine(sources: [.init(name: "iio:iio:device0")], flushInterval: 500, tracing: true)
        let begin = try machine.start(modality: .car, at: Self.t0)
        guard case .begin(let flush, let sources) = try #require(begin.first) else {
            Issue.record("expected a begin, got \(begin)")
            return
        }
        #expect(begin.count == 1 && sources == ["iio:iio:device0"])
        #expect(flush.events.map(\.type) == [.lifecycleStart, .modalityTypeChange] && flush.state == .capturing(track: 1))
        #expect(machine.state == .idle && machine.measurementStart == Self.t0)
        #expect(
            machine.began(measurement: 3, at: Self.t0) == [
                .journal(.start(modality: .car, sources: ["iio:iio:device0"], flushInterval: 500), at: Self.t0),
                .trace([.mark(.start(.car), at: Self.t0)], flush: true),
            ])
        #expect(machine.state == .recording(measurement: 3))
    }

    @Test func samplesWaitForTheFlushThatIsDue() throws {
        var machine = try Self.recording()
        #expect(machine.take([(Self.accelerations(3, from: Self.t0 + 10), Self.t0 + 20)], dropped: 0, capacity: 10, from: 0).isEmpty)
        #expect(machine.status(at: Self.t0 + 20).pendingSamples == 3)
        let flush = try #require(Self.stagedFlushes(machine.flushDue(at: Self.t0 + 1000)).first)
        #expect(flush.motion.accelerometer.count == 3 && flush.events.isEmpty && flush.track == 1)
        // Every interval stages, empty or not: the staging's age limit is checked then.
        #expect(machine.flushDue(at: Self.t0 + 2000) == [.stage(Flush(track: 1, state: .capturing(track: 1), modality: .bicycle)), .trace([], flush: true)])
        #expect(machine.status(at: Self.t0 + 2000).sensors.first { $0.sensor == "acc" }?.captured == 3)
    }

    @Test func aPauseCommitsWhatCameBeforeItAndDropsWhatComesWhilePaused() throws {
        var machine = try Self.recording()
        _ = machine.take([(Self.accelerations(2, from: Self.t0 + 1), Self.t0 + 5)], dropped: 0, capacity: 10, from: 0)
        guard case .applied(let actions, let outcome) = machine.command(.pause, at: Self.t0 + 10, by: .control) else {
            Issue.record("the pause was not applied")
            return
        }
        #expect(outcome == nil)
        let flush = try #require(Self.stagedFlushes(actions).first)
        #expect(flush.motion.accelerometer.count == 2 && flush.events.map(\.type) == [.lifecyclePause])
        #expect(actions.contains(.journal(.command(.pause, by: "capture pause"), at: Self.t0 + 10)))
        #expect(actions.contains(.trace([.mark(.pause, at: Self.t0 + 10)], flush: true)))
        _ = machine.take([(Self.accelerations(4, from: Self.t0 + 20), Self.t0 + 25)], dropped: 0, capacity: 10, from: 0)
        #expect(machine.status(at: Self.t0 + 30).droppedWhilePaused == 4)
        #expect(machine.status(at: Self.t0 + 30).pendingSamples == 0)
    }

    @Test func samplesTakenBeforeTheirTrackBeganBelongToNoTrack() throws {
        var machine = try Self.recording()
        _ = machine.command(.pause, at: Self.t0 + 100, by: .control)
        _ = machine.command(.resume, at: Self.t0 + 200, by: .control)
        // A device buffer read just after the resume: two scans from before it, one after.
        _ = machine.take([(Self.accelerations(3, from: Self.t0 + 198), Self.t0 + 210)], dropped: 0, capacity: 10, from: 0)
        let status = machine.status(at: Self.t0 + 210)
        #expect(status.pendingSamples == 1 && status.droppedWhilePaused == 2 && status.track == 2)
    }

    @Test func refusalsChangeNothingAndASourcesRefusedMarkIsNotedOnIt() throws {
        var machine = try Self.recording([.init(name: "feed"), .init(name: "trace:ride.trace", drivesLifecycle: true)])
        #expect(machine.command(.resume, at: Self.t0 + 5, by: .control) == .refused(.notPaused(state: .capturing(track: 1))))
        #expect(machine.status(at: Self.t0 + 5).state == .capturing)
        _ = machine.command(.pause, at: Self.t0 + 10, by: .control)
        #expect(machine.command(.pause, at: Self.t0 + 20, by: .source(1)) == .refused(.notCapturing(state: .paused(track: 1))))
        #expect(machine.status(at: Self.t0 + 20).sources[1].note?.hasPrefix("left out its pause mark") == true)
    }

    @Test func aModalityChangeSaysWhetherItChangedAnything() throws {
        var machine = try Self.recording()
        guard case .applied(_, let changed) = machine.command(.modality(.walking), at: Self.t0 + 1, by: .control),
            case .applied(_, let same) = machine.command(.modality(.walking), at: Self.t0 + 2, by: .control)
        else {
            Issue.record("a modality change was refused")
            return
        }
        #expect(changed == .changed && same == .unchanged)
        #expect(machine.status(at: Self.t0 + 2).modality == .walking)
    }

    @Test func aStopFinishesWithTheTalliesAndNothingIsTakenAfterIt() throws {
        var machine = try Self.recording([.init(name: "a"), .init(name: "b")])
        _ = machine.take([(Self.accelerations(5, from: Self.t0 + 1), Self.t0 + 10)], dropped: 3, capacity: 5, from: 1)
        guard case .applied(let actions, _) = machine.command(.stop, at: Self.t0 + 20, by: .control) else {
            Issue.record("the stop was not applied")
            return
        }
        var captured = SampleCounts()
        captured.accelerometer = 5
        #expect(actions.last == .finish(captured: captured, lost: ["b": 3]))
        #expect(Self.stagedFlushes(actions).first?.state == .finished(tracks: 1))
        #expect(machine.isFinished && machine.failure == nil)
        // The stop's answer (the status after it) names the measurement it stopped.
        #expect(machine.measurement != nil && machine.status(at: Self.t0 + 20).measurement == machine.measurement)
        #expect(machine.take([(Self.accelerations(2, from: Self.t0 + 30), Self.t0 + 30)], dropped: 0, capacity: 5, from: 0).isEmpty)
        #expect(machine.flushDue(at: Self.t0 + 1000).isEmpty)
        #expect(machine.command(.stop, at: Self.t0 + 40, by: .source(0)) == .applied([], outcome: nil))
    }

    @Test func anInboxThatOverflowedIsALossNotedOnceInTheJournal() throws {
        var machine = try Self.recording()
        let first = machine.take([], dropped: 4, capacity: 2, from: 0)
        guard case .journal(.note(let source, let line, let lostSoFar), nil) = try #require(first.first) else {
            Issue.record("expected a journal line, got \(first)")
            return
        }
        #expect(source == "feed" && line.contains("fell behind") && lostSoFar == 4)
        // The same note again counts, but is not written again.
        #expect(machine.take([], dropped: 1, capacity: 2, from: 0).isEmpty)
        #expect(machine.status(at: Self.t0).lostSamples == 5)
        #expect(machine.note(.skipped(9), from: 0).isEmpty)
        #expect(machine.note(.gnss(state: .fixed), from: 0) == [.journal(.note(source: "feed", line: "gnss: fixed", lostSoFar: nil), at: nil)])
    }

    /// A full store is pruned and the failed action tried again for as long as a prune removes
    /// something; only a prune that finds nothing left to remove ends the recording (exit 73).
    /// Before: one prune per failure, and a retry that failed again ended the recording with
    /// delivered rides still in the store (the month in the field, day 17, docs/faults.md).
    @Test func aFullStoreIsPrunedUntilNothingIsLeftToRemoveThenEndsTheRecording() throws {
        var machine = try Self.recording(canPrune: true)
        let full = StoreError.diskFull(path: "/data")
        for _ in 0..<3 {
            #expect(machine.storeFailed(full) == .pruneAndRetry)
            #expect(machine.pruned(removed: 1, after: full) == .retry)
            #expect(!machine.isFinished, "a retry that fails again after a prune that removed a ride prunes again")
        }
        #expect(machine.storeFailed(full) == .pruneAndRetry)
        guard case .stop(let actions) = machine.pruned(removed: 0, after: full) else {
            Issue.record("nothing left to prune must end the recording")
            return
        }
        #expect(actions.first == .commitWhatFits)
        #expect(machine.failure == full)
        #expect(machine.command(.pause, at: Self.t0, by: .control) == .failed(full))
        // Once ended, nothing is performed again.
        #expect(machine.pruned(removed: 0, after: full) == .stop([]))
    }

    /// A full store met while a stop is performed (the machine has finished) is pruned too, so
    /// that the stop goes in.
    @Test func aFullStoreAtTheStopIsPrunedToo() throws {
        var machine = try Self.recording(canPrune: true)
        guard case .applied = machine.command(.stop, at: Self.t0 + 1_000, by: .control) else {
            Issue.record("stop refused")
            return
        }
        #expect(machine.isFinished)
        let full = StoreError.diskFull(path: "/data")
        #expect(machine.storeFailed(full, during: .commitStaged(patience: 2)) == .pruneAndRetry)
        #expect(machine.pruned(removed: 2, after: full) == .retry)
    }

    @Test func withoutARetentionPolicyAFullStoreEndsTheRecordingAtOnce() throws {
        var machine = try Self.recording()
        guard case .stop(let actions) = machine.storeFailed(.diskFull(path: "/data")) else {
            Issue.record("nothing may be pruned")
            return
        }
        #expect(actions.count == 2 && actions.first == .commitWhatFits)
        #expect(machine.storeFailed(.diskFull(path: "/data")) == .stop([]))
    }

    @Test func aHostClockFoundOffPutsTheMeasurementOnGNSSTime() throws {
        var machine = try Self.recording(
            [.init(name: "gpsd", clock: .gnss), .init(name: "imu", clock: .host)], gnssTime: .always)
        let offset: Int64 = 86_400_000
        var moves: [Action] = []
        for second in 0..<Int64(GNSSClock.minimumFixes) {
            let host = Self.t0 + 1000 * second
            let fix = Sample.fix(Fix(timestamp: host + offset, latitude: 51, longitude: 13))
            moves += machine.take([([fix], host)], dropped: 0, capacity: 10, from: 0)
        }
        #expect(moves.contains(.moveToGNSSTime(correction: offset, motion: true)))
        // What is pending goes to the store before everything stored moves.
        #expect(moves.firstIndex { if case .stage = $0 { true } else { false } } ?? .max < moves.firstIndex(of: .moveToGNSSTime(correction: offset, motion: true)) ?? -1)
        // The move is staged after it, then committed with it: a busy store keeps it waiting
        // in the flush log, and the recording goes on.
        let move = try #require(moves.firstIndex(of: .moveToGNSSTime(correction: offset, motion: true)))
        #expect(moves[move + 1] == .commitStaged(patience: StagedCommits.lifecyclePatience))
        #expect(machine.storeFailed(.busy(path: "/data/capture.sqlite"), during: moves[move + 1]) == .wait)
        #expect(machine.failure == nil && machine.eventsWaiting)
        machine.caughtUp()
        // Host-clock samples and control commands are moved as they come.
        _ = machine.take([(Self.accelerations(1, from: Self.t0 + 6000), Self.t0 + 6000)], dropped: 0, capacity: 10, from: 1)
        let flush = try #require(Self.stagedFlushes(machine.flushDue(at: Self.t0 + 7000)).first)
        #expect(flush.motion.accelerometer.first?.timestamp == Self.t0 + 6000 + offset)
        guard case .applied(let actions, _) = machine.command(.pause, at: Self.t0 + 8000, by: .control) else {
            Issue.record("the pause was not applied")
            return
        }
        #expect(Self.stagedFlushes(actions).first?.events.first?.timestamp == Self.t0 + 8000 + offset)
        #expect(machine.status(at: Self.t0 + 8000).clock?.correctionMs == offset)
    }

    @Test func aSynchronisedHostClockIsLeftAloneUnderTheAutoPolicy() throws {
        var machine = Machine(
            sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 1000, gnssTime: .auto, hostSynchronized: true)
        _ = try machine.start(modality: .bicycle, at: Self.t0)
        _ = machine.began(measurement: 1, at: Self.t0)
        var actions: [Action] = []
        for second in 0..<Int64(10) {
            let fix = Sample.fix(Fix(timestamp: Self.t0 + 1000 * second + 60_000, latitude: 51, longitude: 13))
            actions += machine.take([([fix], Self.t0 + 1000 * second)], dropped: 0, capacity: 10, from: 0)
        }
        #expect(actions.isEmpty)
        #expect(machine.status(at: Self.t0).clock?.correctionMs == nil)
    }

    @Test func aRecoveryPausesWhereTheDataEndsAndResumesNowOnANewTrack() throws {
        var machine = Machine(sources: [.init(name: "iio")], flushInterval: 1000)
        let open = Machine.Interrupted(
            id: 4, startTime: Self.t0, lifecycle: Lifecycle(restoring: .capturing(track: 2), modality: .car),
            committedEnd: Self.t0 + 5000, correction: nil)
        let actions = try machine.recover(open, at: Self.t0 + 60_000)
        let staged = Self.stagedFlushes(actions)
        #expect(staged.map { $0.events.map(\.type) } == [[.lifecyclePause], [.lifecycleResume]])
        #expect(staged.map { $0.events.first?.timestamp } == [Self.t0 + 5000, Self.t0 + 60_000])
        // Staged after what the dead recorder left, then committed as a command's events are.
        #expect(actions.last == .commitStaged(patience: StagedCommits.lifecyclePatience))
        #expect(actions.first == .journal(.recovered(committedUntil: Self.t0 + 5000, sources: ["iio"]), at: nil))
        #expect(machine.state == .recording(measurement: 4))
        #expect(machine.status(at: Self.t0 + 60_000).track == 3)
    }

    @Test func aTraceThatHadPausedItsMeasurementResumesItItself() throws {
        var machine = Machine(sources: [.init(name: "trace:ride.trace", drivesLifecycle: true)], flushInterval: 1000)
        let open = Machine.Interrupted(
            id: 4, startTime: Self.t0, lifecycle: Lifecycle(restoring: .paused(track: 1), modality: .car),
            committedEnd: Self.t0 + 5000, correction: 2000)
        let actions = try machine.recover(open, at: Self.t0 + 60_000)
        #expect(Self.stagedFlushes(actions).isEmpty)
        // On the host clock: the stored times less the correction an earlier recorder applied.
        #expect(
            actions.last
                == .continueSources(measurementStart: Self.t0 - 2000, committedEnd: Self.t0 + 3000, resumedAt: Self.t0 + 60_000))
        #expect(machine.measurementStart == Self.t0 - 2000)
        machine.renamed(["trace:ride.trace@delay=55000"])
        #expect(machine.status(at: Self.t0).sources.first?.name == "trace:ride.trace@delay=55000")
        #expect(machine.status(at: Self.t0).state == .paused)
    }

    @Test func aTracedRecordingHandsOnWhatTheSourcesDelivered() throws {
        var machine = try Self.recording(tracing: true)
        let samples = Self.accelerations(2, from: Self.t0 + 1)
        #expect(machine.take([(samples, Self.t0 + 5)], dropped: 0, capacity: 10, from: 0) == [.trace(samples.map(TraceRecord.sample), flush: false)])
    }

    /// A store another process holds (a long read) never ends the recording (issue 28, item 5):
    /// a command's events are staged, durable in the flush log, and its commit waits; every
    /// flush tries again until one goes through; a stop with events waiting still finishes.
    @Test func aLifecycleCommandWaitsForABusyStoreAndTheRecordingGoesOn() throws {
        var machine = try Self.recording()
        let busy = StoreError.busy(path: "/data/capture.sqlite")
        _ = machine.take([(Self.accelerations(2, from: Self.t0 + 1), Self.t0 + 5)], dropped: 0, capacity: 10, from: 0)
        guard case .applied(let pause, _) = machine.command(.pause, at: Self.t0 + 10, by: .control) else {
            Issue.record("the pause was not applied")
            return
        }
        // Staged first (durable), then committed at once, if the store lets it.
        guard pause.count >= 2, case .stage(let flush, _) = pause[0] else {
            Issue.record("expected the pause staged first, got \(pause)")
            return
        }
        #expect(flush.events.map(\.type) == [.lifecyclePause] && flush.motion.accelerometer.count == 2)
        #expect(pause[1] == .commitStaged(patience: StagedCommits.lifecyclePatience))
        #expect(!machine.eventsWaiting)

        // The store is busy: the events wait, the recording goes on.
        #expect(machine.storeFailed(busy, during: .commitStaged(patience: 2)) == .wait)
        #expect(machine.eventsWaiting && machine.failure == nil && machine.state == .recording(measurement: 7))
        #expect(machine.status(at: Self.t0 + 20).eventsWaiting == true)
        let retry = machine.flushDue(at: Self.t0 + 1000)
        // Each try gives way at once, so that it never keeps other readers out for long.
        #expect(
            retry == [
                .stage(Flush(track: 1, state: .paused(track: 1), modality: .bicycle)),
                .commitStaged(patience: StagedCommits.patience), .trace([], flush: true),
            ])
        #expect(machine.storeFailed(busy, during: .commitStaged(patience: 2)) == .wait)

        // Commands go on meanwhile, each after the last.
        guard case .applied(let resume, _) = machine.command(.resume, at: Self.t0 + 1500, by: .control) else {
            Issue.record("the resume was not applied")
            return
        }
        #expect(Self.stagedFlushes(resume).map { $0.events.map(\.type) } == [[.lifecycleResume]])
        #expect(machine.storeFailed(busy, during: .commitStaged(patience: 2)) == .wait)
        _ = machine.take([(Self.accelerations(3, from: Self.t0 + 1600), Self.t0 + 1700)], dropped: 0, capacity: 10, from: 0)
        let samples = machine.flushDue(at: Self.t0 + 2000)
        #expect(Self.stagedFlushes(samples).first?.motion.accelerometer.count == 3)
        #expect(samples.contains(.commitStaged(patience: StagedCommits.patience)))

        // Once a commit goes through, flushes stage as before.
        machine.caughtUp()
        #expect(!machine.eventsWaiting)
        #expect(machine.status(at: Self.t0 + 2500).eventsWaiting == nil)
        #expect(!machine.flushDue(at: Self.t0 + 3000).contains { if case .commitStaged = $0 { true } else { false } })

        // A stop whose commit waits: finished, not failed; its events still wait (the driver
        // commits them before it exits).
        guard case .applied(let stop, _) = machine.command(.stop, at: Self.t0 + 3500, by: .control) else {
            Issue.record("the stop was not applied")
            return
        }
        #expect(stop.contains(.commitStaged(patience: StagedCommits.lifecyclePatience)))
        #expect(machine.storeFailed(busy, during: .commitStaged(patience: 2)) == .wait)
        #expect(machine.isFinished && machine.failure == nil && machine.eventsWaiting)
    }

    /// Busy anywhere but in a commit of what is staged is a failure as before: what that action
    /// carried is not in the flush log.
    @Test func aBusyStoreOutsideAStagedCommitStillEndsTheRecording() throws {
        var machine = try Self.recording()
        let busy = StoreError.busy(path: "/data/capture.sqlite")
        guard case .stop(let actions) = machine.storeFailed(busy, during: .moveToGNSSTime(correction: 5, motion: true)) else {
            Issue.record("a busy move must end the recording")
            return
        }
        #expect(actions.first == .commitWhatFits)
        #expect(machine.failure == busy && !machine.eventsWaiting)
    }
}
