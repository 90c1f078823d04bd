import CaptureCore
import Testing

@Suite struct LifecycleTests {
    @Test func startRecordsStartThenModalityAtTheSameTime() throws {
        var lifecycle = Lifecycle()
        let events = try lifecycle.start(at: 1_000, modality: .bicycle)
        #expect(
            events == [
                Event(timestamp: 1_000, type: .lifecycleStart),
                Event(timestamp: 1_000, type: .modalityTypeChange, value: "BICYCLE"),
            ])
        #expect(lifecycle.state == .capturing(track: 1))
        #expect(lifecycle.modality == .bicycle)
    }

    @Test func pauseResumeOpensANewTrackEachTime() throws {
        var lifecycle = Lifecycle()
        _ = try lifecycle.start(at: 0, modality: .car)
        #expect(try lifecycle.pause(at: 10) == [Event(timestamp: 10, type: .lifecyclePause)])
        #expect(lifecycle.state == .paused(track: 1))
        #expect(try lifecycle.resume(at: 20) == [Event(timestamp: 20, type: .lifecycleResume)])
        #expect(lifecycle.state == .capturing(track: 2))
        _ = try lifecycle.pause(at: 30)
        _ = try lifecycle.resume(at: 40)
        #expect(lifecycle.state == .capturing(track: 3))
        #expect(try lifecycle.stop(at: 50) == [Event(timestamp: 50, type: .lifecycleStop)])
        #expect(lifecycle.state == .finished(tracks: 3))
    }

    @Test func stopFromPaused() throws {
        var lifecycle = Lifecycle()
        _ = try lifecycle.start(at: 0, modality: .car)
        _ = try lifecycle.pause(at: 1)
        _ = try lifecycle.stop(at: 2)
        #expect(lifecycle.state == .finished(tracks: 1))
    }

    @Test func modalityChangesAreRecordedOnceAndTheSameModalityIsIgnored() throws {
        var lifecycle = Lifecycle()
        _ = try lifecycle.start(at: 0, modality: .bicycle)
        #expect(try lifecycle.changeModality(to: .bicycle, at: 5).isEmpty)
        #expect(
            try lifecycle.changeModality(to: .walking, at: 6)
                == [Event(timestamp: 6, type: .modalityTypeChange, value: "WALKING")])
        _ = try lifecycle.pause(at: 7)
        // Allowed while paused too.
        #expect(try lifecycle.changeModality(to: .car, at: 8).count == 1)
        #expect(lifecycle.modality == .car)
    }

    /// Every command in every state: legal ones change the state, illegal ones throw the
    /// documented error and change nothing.
    @Test(arguments: [
        (Lifecycle.State.idle, LifecycleCommand.pause, LifecycleError.notOpen(state: .idle)),
        (.idle, .resume, .notOpen(state: .idle)),
        (.idle, .stop, .notOpen(state: .idle)),
        (.idle, .modality(.car), .notOpen(state: .idle)),
        (.capturing(track: 1), .start(.car), .alreadyStarted(state: .capturing(track: 1))),
        (.capturing(track: 1), .resume, .notPaused(state: .capturing(track: 1))),
        (.paused(track: 1), .start(.car), .alreadyStarted(state: .paused(track: 1))),
        (.paused(track: 1), .pause, .notCapturing(state: .paused(track: 1))),
        (.finished(tracks: 1), .start(.car), .alreadyStarted(state: .finished(tracks: 1))),
        (.finished(tracks: 1), .pause, .notOpen(state: .finished(tracks: 1))),
        (.finished(tracks: 1), .resume, .notOpen(state: .finished(tracks: 1))),
        (.finished(tracks: 1), .stop, .notOpen(state: .finished(tracks: 1))),
        (.finished(tracks: 1), .modality(.car), .notOpen(state: .finished(tracks: 1))),
    ])
    func illegalTransitionsThrowAndChangeNothing(
        state: Lifecycle.State, command: LifecycleCommand, expected: LifecycleError
    ) {
        var lifecycle = Lifecycle(restoring: state, modality: state == .idle ? nil : .bicycle)
        let before = lifecycle
        do {
            _ = try lifecycle.apply(command, at: 99)
            Issue.record("\(command) in \(state) should have thrown")
        } catch {
            #expect(error == expected)
        }
        #expect(lifecycle == before)
    }

    @Test(arguments: [
        (Lifecycle.State.idle, LifecycleCommand.start(.bus), Lifecycle.State.capturing(track: 1)),
        (.capturing(track: 2), .pause, .paused(track: 2)),
        (.capturing(track: 2), .stop, .finished(tracks: 2)),
        (.capturing(track: 2), .modality(.train), .capturing(track: 2)),
        (.paused(track: 2), .resume, .capturing(track: 3)),
        (.paused(track: 2), .stop, .finished(tracks: 2)),
        (.paused(track: 2), .modality(.train), .paused(track: 2)),
    ])
    func legalTransitions(state: Lifecycle.State, command: LifecycleCommand, after: Lifecycle.State) throws {
        var lifecycle = Lifecycle(restoring: state, modality: state == .idle ? nil : .bicycle)
        let events = try lifecycle.apply(command, at: 5)
        #expect(lifecycle.state == after)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.timestamp == 5 })
    }

    @Test func modalitiesParseCaseInsensitivelyToTheCanonicalSpelling() {
        #expect(Modality(parsing: "bicycle") == .bicycle)
        #expect(Modality(parsing: "ebike") == .eBike)
        #expect(Modality(parsing: "ECARGOBIKE")?.rawValue == "ECargoBike")
        #expect(Modality(parsing: "Walking") == .walking)
        #expect(Modality(parsing: "skateboard") == nil)
        #expect(Modality(parsing: "") == nil)
        #expect(Modality.allCases.count == 10)
    }
}

@Suite struct RecordingTests {
    @Test func samplesAreDroppedUnlessCapturing() throws {
        var engine = Recording()
        let beforeStart = engine.ingest(.pressure(PressureSample(timestamp: 0, hectopascals: 1000)))
        _ = try engine.apply(.start(.bicycle), at: 1)
        let capturing = engine.ingest(.pressure(PressureSample(timestamp: 2, hectopascals: 1000)))
        _ = try engine.apply(.pause, at: 3)
        let paused = engine.ingest(.pressure(PressureSample(timestamp: 4, hectopascals: 1000)))
        #expect(!beforeStart)
        #expect(capturing)
        #expect(!paused)
        #expect(engine.droppedWhileNotCapturing == 2)
        #expect(engine.accepted == 1)
    }

    @Test func aTransitionFlushesTheSamplesBeforeItThenItsEvents() throws {
        var engine = Recording()
        let start = try engine.apply(.start(.car), at: 0)
        #expect(start.events.map(\.type) == [.lifecycleStart, .modalityTypeChange])
        #expect(start.state == .capturing(track: 1))
        let sample = MotionSample(timestamp: 5, x: 1, y: 2, z: 3)
        engine.ingest(.motion(.accelerometer, sample))
        engine.ingest(.fix(Fix(timestamp: 6, latitude: 1, longitude: 2)))
        let pause = try engine.apply(.pause, at: 7)
        #expect(pause.track == 1)
        #expect(pause.motion[.accelerometer] == [sample])
        #expect(pause.fixes.count == 1)
        #expect(pause.events == [Event(timestamp: 7, type: .lifecyclePause)])
        #expect(pause.state == .paused(track: 1))
        #expect(engine.pendingSamples == 0)
        let resume = try engine.apply(.resume, at: 8)
        #expect(resume.sampleCount == 0)
        #expect(resume.state == .capturing(track: 2))
        engine.ingest(.motion(.gyroscope, sample))
        let periodic = engine.takeFlush()
        #expect(periodic.track == 2)
        #expect(periodic.events.isEmpty)
        #expect(periodic.motion[.gyroscope].count == 1)
        #expect(engine.takeFlush().isEmpty)
    }

    /// A sample the store or the transfer format cannot hold is rejected and counted at the
    /// gate, so it can never make a whole flush fail.
    @Test func unstorableSamplesAreRejectedAndCounted() throws {
        var engine = Recording()
        _ = try engine.apply(.start(.car), at: 0)
        let rejected: [Sample] = [
            .motion(.accelerometer, MotionSample(timestamp: 1, x: .nan, y: 0, z: 0)),
            .motion(.gyroscope, MotionSample(timestamp: 1, x: 0, y: .infinity, z: 0)),
            .motion(.accelerometer, MotionSample(timestamp: 1, x: 0, y: 0, z: 2e6)),
            .motion(.magnetometer, MotionSample(timestamp: 1, x: 2e7, y: 0, z: 0)),
            .pressure(PressureSample(timestamp: 1, hectopascals: .nan)),
            .pressure(PressureSample(timestamp: 1, hectopascals: 0)),
            .fix(Fix(timestamp: 1, latitude: .nan, longitude: 13)),
            .fix(Fix(timestamp: 1, latitude: 51, longitude: 181)),
        ]
        let results = rejected.map { engine.ingest($0) }
        #expect(results.allSatisfy { !$0 })
        #expect(engine.rejectedUnstorable == rejected.count)
        let kept = [
            engine.ingest(.motion(.accelerometer, MotionSample(timestamp: 2, x: 1e6, y: -9.81, z: 0))),
            engine.ingest(.fix(Fix(timestamp: 2, latitude: 51, longitude: 13, altitude: .nan, speed: .infinity, course: 90))),
        ]
        #expect(kept == [true, true])
        let flush = engine.takeFlush()
        #expect(flush.motion.accelerometer.count == 1)
        #expect(flush.fixes == [Fix(timestamp: 2, latitude: 51, longitude: 13, course: 90)])
    }

    @Test func anIllegalCommandKeepsPendingSamples() throws {
        var engine = Recording()
        _ = try engine.apply(.start(.car), at: 0)
        engine.ingest(.pressure(PressureSample(timestamp: 1, hectopascals: 990)))
        do {
            _ = try engine.apply(.resume, at: 2)
            Issue.record("resume while capturing should have thrown")
        } catch {
            #expect(error == .notPaused(state: .capturing(track: 1)))
        }
        #expect(engine.pendingSamples == 1)
    }
}
