import CaptureCore
import CaptureStorage
import Foundation
import Testing

@testable import CaptureRecorder

/// The ride rules (`ride.detect: auto`) on the recorder's state value, event by event: armed,
/// motion, still, the end of a ride, `capture stop`, a shutdown. No threads, no files, no clocks.
@Suite("Rides that follow motion, event by event")
struct RideRulesTests: StateMachineSuite {
    static let settings = RideSettings(detect: .auto, endAfterStill: 10_000, preRoll: 3_000, minDistance: 50)

    /// An accelerometer (host clock) and a receiver (GNSS clock, on time).
    static func armed(_ settings: RideSettings = settings, accelerometer: Bool = true) -> Machine {
        var sources: [Machine.SourceInfo] = [.init(name: "gpsd", clock: .gnss)]
        if accelerometer { sources.append(.init(name: "iio:iio:device0")) }
        var machine = Machine(sources: sources, flushInterval: 1000, hostSynchronized: true, ride: settings)
        machine.arm(modality: .bicycle, at: t0)
        return machine
    }

    /// A simulated world: each second one fix and ten accelerometer samples, then a flush.
    struct World {
        var machine: Machine
        var second = 0
        /// Metres north of the start.
        var north = 0.0
        var actions: [Action] = []
        var accelerometer = true
        /// How far the receiver's time runs ahead of the host clock, ms.
        var fixAhead: Int64 = 0

        /// One second, moving at `speed` m/s (0: standing).
        mutating func run(_ seconds: Int, speed: Double) {
            for _ in 0..<seconds {
                let start = RideRulesTests.t0 + Int64(second) * 1000
                north += speed
                let fix = Fix(timestamp: start + 500 + fixAhead, latitude: 51 + north / 111_320, longitude: 13, speed: speed)
                if accelerometer {
                    let samples = (0..<10).map { index in
                        // Riding shakes the sensor (±2 m/s² about gravity); standing it does not.
                        Sample.motion(
                            .accelerometer,
                            MotionSample(
                                timestamp: start + Int64(index) * 100, x: 0, y: 0,
                                z: 9.81 + (speed > 0 ? (index % 2 == 0 ? 2 : -2) : 0)))
                    }
                    actions += machine.take([(samples, start + 950)], dropped: 0, capacity: 1000, from: 1)
                }
                actions += machine.take([([.fix(fix)], start + 600)], dropped: 0, capacity: 1000, from: 0)
                second += 1
                actions += machine.flushDue(at: RideRulesTests.t0 + Int64(second) * 1000)
                // The driver reports the store's id for a ride begun.
                if case .recording(0) = machine.state, actions.contains(where: { $0.beginsRide }) {
                    actions += machine.began(measurement: 9, at: RideRulesTests.t0 + Int64(second) * 1000)
                }
            }
        }

        var staged: [Flush] { RideRulesTests.stagedFlushes(actions) }
    }

    @Test func armedTheRecorderKeepsThePreRollAndWritesNothing() {
        var world = World(machine: Self.armed())
        world.run(20, speed: 0)
        #expect(world.actions.isEmpty)
        #expect(world.machine.state == .armed)
        // Only the last pre-roll (3 s) is held: 3 or 4 seconds of 11 samples.
        #expect((33...44).contains(world.machine.ride.preRoll.count))
        #expect(world.machine.status(at: Self.t0 + 20_000).ride == RideStatus(state: .armed, since: Self.t0))
    }

    @Test func motionBeginsARideWithThePreRollInIt() throws {
        var world = World(machine: Self.armed())
        world.run(10, speed: 0)
        world.run(3, speed: 5)
        let begin = try #require(world.actions.first)
        guard case .beginRide(let flush, let sources, .motion, _) = begin else {
            Issue.record("expected a ride to begin, got \(begin)")
            return
        }
        #expect(sources == ["gpsd", "iio:iio:device0"])
        #expect(flush.events.map(\.type) == [.lifecycleStart, .modalityTypeChange] && flush.modality == .bicycle)
        let start = try #require(flush.events.first?.timestamp)
        // Motion was seen at second 10; the ride holds the 3 s before it.
        #expect(start <= Self.t0 + 8_000 && start >= Self.t0 + 6_900)
        #expect(world.machine.state == .recording(measurement: 9))
        #expect(world.actions.contains(.journal(.ride(.begun(by: .motion, preRollFrom: start)), at: nil)))
        let samples = world.staged.flatMap(\.motion.accelerometer)
        #expect(samples.first.map { $0.timestamp >= start && $0.timestamp < Self.t0 + 8_000 } == true)
        // Nothing is lost or repeated between the pre-roll and what follows.
        let times = samples.map(\.timestamp)
        #expect(times == times.sorted() && Set(times).count == times.count)
        #expect(times.last == Self.t0 + 12_900)
    }

    @Test func standingStillEndsTheRideWithItsStillTailCut() throws {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        world.run(30, speed: 5)
        world.actions = []
        world.run(12, speed: 0)
        let end = try #require(world.actions.firstIndex { $0.endsRide })
        guard case .endRide(_, let captured, let discard, let by) = world.actions[end] else { return }
        #expect(!discard && by == .motion && captured.locations > 28)
        let stop = try #require(world.staged.last?.events.last)
        #expect(stop.type == .lifecycleStop)
        // Still was seen within two seconds of the stop; nothing after that is kept.
        #expect(stop.timestamp >= Self.t0 + 32_000 && stop.timestamp <= Self.t0 + 34_000)
        let kept = world.staged.flatMap(\.motion.accelerometer).map(\.timestamp)
        #expect(kept.allSatisfy { $0 <= stop.timestamp })
        #expect(world.actions.contains(.journal(.ride(.still), at: nil)))
        #expect(world.actions.contains(.journal(.ride(.armed), at: nil)))
        #expect(world.machine.state == .armed)
        #expect(world.machine.status(at: Self.t0 + 50_000).ride?.lastRide == 9)
    }

    @Test func aStopAtARedLightKeepsWhatWasHeldWhileStanding() {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        world.run(10, speed: 5)
        world.run(6, speed: 0)
        #expect(world.machine.status(at: Self.t0 + 18_000).ride?.state == .still)
        world.actions = []
        world.run(3, speed: 5)
        #expect(!world.actions.contains { $0.endsRide })
        #expect(world.actions.contains { if case .journal(.ride(.moving), _) = $0 { true } else { false } })
        // What was held while standing goes to the store with the next flush.
        let times = world.staged.flatMap(\.motion.accelerometer).map(\.timestamp)
        #expect(times.contains(Self.t0 + 15_000) && times.contains(Self.t0 + 20_900))
        #expect(world.machine.status(at: Self.t0 + 21_000).ride?.state == .recording)
    }

    @Test func aRideThatMovedLessThanTheMinimumIsDiscarded() throws {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        // Someone moves the parked bike: shaking, 4 m in all.
        world.run(2, speed: 2)
        world.run(12, speed: 0)
        let end = try #require(world.actions.first { $0.endsRide })
        #expect(end.discards == true)
        #expect(world.actions.contains { if case .journal(.ride(.ended(.motion, _, true)), _) = $0 { true } else { false } })
    }

    /// A ride is judged by the way its stored fixes came: the fixes its end drops as the still
    /// tail add nothing. Here the bike moves 35 m, is pushed 20 m on while the receiver is dark
    /// (less than the detector's 25 m: standing) and stands: 35 m stored, discarded.
    @Test func theFixesOfAStillTailAddNothingToTheWayARideIsJudgedBy() throws {
        var world = World(machine: Self.armed(accelerometer: false), accelerometer: false)
        world.run(2, speed: 0)
        world.run(7, speed: 5)
        for _ in 0..<8 {
            world.second += 1
            world.actions += world.machine.flushDue(at: Self.t0 + Int64(world.second) * 1000)
        }
        world.north += 20
        world.run(15, speed: 0)
        let end = try #require(world.actions.first { $0.endsRide })
        #expect(end.discards == true)
        let ended = world.actions.compactMap { action -> Double? in
            if case .journal(.ride(.ended(.motion, let distance, _)), _) = action { distance } else { nil }
        }
        #expect(ended.count == 1 && abs(ended[0] - 35) < 1, "\(ended)")
    }

    @Test func withOnlyAReceiverItsFixesDecide() throws {
        var world = World(machine: Self.armed(accelerometer: false), accelerometer: false)
        world.run(5, speed: 0)
        #expect(world.actions.isEmpty)
        world.run(20, speed: 6)
        #expect(world.actions.contains { $0.beginsRide })
        world.run(12, speed: 0)
        #expect(try #require(world.actions.first { $0.endsRide }).discards == false)
    }

    @Test func captureStopEndsTheRideNotTheRecording() throws {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        world.run(20, speed: 5)
        guard case .applied(let actions, _) = world.machine.command(.stop, at: Self.t0 + 22_100, by: .control) else {
            Issue.record("the stop was not applied")
            return
        }
        #expect(actions.contains { if case .endRide(_, _, false, .command) = $0 { true } else { false } })
        #expect(actions.capturedOfEnd != nil)
        #expect(!actions.contains { if case .finish = $0 { true } else { false } })
        #expect(world.machine.state == .armed)
        // Armed there is no ride to stop.
        guard case .refused(.notOpen) = world.machine.command(.stop, at: Self.t0 + 23_000, by: .control) else {
            Issue.record("a stop while armed was not refused")
            return
        }
        // The recorder's own end (SIGTERM) finishes the run.
        #expect(world.machine.shutdown(at: Self.t0 + 24_000).contains { if case .finish = $0 { true } else { false } })
        #expect(world.machine.isFinished)
    }

    @Test func aModalityChangeWhileArmedIsTheNextRidesModality() throws {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        #expect(world.machine.command(.modality(.car), at: Self.t0 + 2_100, by: .control) == .applied([], outcome: .changed))
        #expect(world.machine.command(.modality(.car), at: Self.t0 + 2_200, by: .control) == .applied([], outcome: .unchanged))
        world.run(3, speed: 5)
        guard case .beginRide(let flush, _, _, _) = try #require(world.actions.first) else { return }
        #expect(flush.modality == .car)
    }

    @Test func aShutdownDuringARideEndsItThenTheRun() {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        world.run(10, speed: 5)
        let actions = world.machine.shutdown(at: Self.t0 + 12_500)
        #expect(actions.contains { $0.endsRide })
        #expect(actions.last.map { if case .finish = $0 { true } else { false } } == true)
    }

    @Test func withDetectionOffNothingChanges() throws {
        var machine = Machine(sources: [.init(name: "feed")], flushInterval: 1000)
        _ = try machine.start(modality: .bicycle, at: Self.t0)
        _ = machine.began(measurement: 1, at: Self.t0)
        #expect(machine.status(at: Self.t0).ride == nil)
        guard case .applied(let actions, _) = machine.command(.stop, at: Self.t0 + 100, by: .control) else { return }
        #expect(actions.contains { if case .finish = $0 { true } else { false } })
    }

    @Test func statusSaysArmedOrStillSince() {
        var world = World(machine: Self.armed())
        world.run(2, speed: 0)
        let armed = world.machine.status(at: Self.t0 + 2_000).ride
        #expect(armed?.state == .armed && armed?.since == Self.t0)
        world.run(20, speed: 5)
        world.run(3, speed: 0)
        let still = world.machine.status(at: Self.t0 + 25_000).ride
        #expect(still?.state == .still && (still?.distance ?? 0) > 50, "\(String(describing: still))")
    }

    @Test func theRideTallysJSONNamesEveryKindByItsCaseAndReadsBack() throws {
        let tally = RideTally([.begunByMotion: 2, .endedByPower: 1, .endedBySize: 0])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(tally), as: UTF8.self)
        #expect(json == #"{"begunByButton":0,"begunByCommand":0,"begunByMotion":2,"begunBySize":0,"discardedAsStill":0,"endedByButton":0,"endedByCommand":0,"endedByFullStore":0,"endedByMotion":0,"endedByPower":1,"endedBySize":0,"sawUnderVoltage":0}"#)
        #expect(try JSONDecoder().decode(RideTally.self, from: Data(json.utf8)) == tally)
        #expect(tally != RideTally() && RideTally([.endedBySize: 0]) == RideTally())
    }

    @Test func anInterruptionContinuesOnlyWithinResumeWithin() {
        let ride = RideSettings(resumeWithin: 120_000)
        #expect(ride.continues(committedEnd: Self.t0, at: Self.t0 + 119_000))
        #expect(!ride.continues(committedEnd: Self.t0, at: Self.t0 + 121_000))
        // A clock that went backwards tells nothing about the cut: the ride is finished.
        #expect(!ride.continues(committedEnd: Self.t0, at: Self.t0 - 5_000))
    }

    @Test func theDetectorJudgesEachSourceAndForgetsAStaleOne() {
        var detector = MotionDetector()
        #expect(detector.verdict(at: Self.t0) == nil)
        for index in 0..<12 {
            let z = 9.81 + (index % 2 == 0 ? 0.01 : -0.01)
            detector.observe(.motion(.accelerometer, MotionSample(timestamp: 0, x: 0, y: 0, z: z)), at: Self.t0 + Int64(index) * 100)
        }
        #expect(detector.verdict(at: Self.t0 + 1_100) == .still)
        // A fix 30 m from where standing began moves, whatever its speed says.
        detector.observe(.fix(Fix(timestamp: 0, latitude: 51, longitude: 13, speed: 0)), at: Self.t0 + 1_200)
        #expect(detector.verdict(at: Self.t0 + 1_200) == .still)
        detector.observe(.fix(Fix(timestamp: 0, latitude: 51 + 30 / 111_320, longitude: 13, speed: 0)), at: Self.t0 + 2_200)
        #expect(detector.verdict(at: Self.t0 + 2_200) == .moving)
        // Six seconds later neither has a say.
        #expect(detector.verdict(at: Self.t0 + 8_300) == nil)
    }
}

extension RecorderStateMachine.Action {
    var beginsRide: Bool { if case .beginRide = self { true } else { false } }
    var discards: Bool? { if case .endRide(_, _, let discard, _) = self { discard } else { nil } }
}

extension [RecorderStateMachine.Action] {
    var capturedOfEnd: SampleCounts? {
        for action in self { if case .endRide(_, let captured, _, _) = action { return captured } }
        return nil
    }
}
