import CaptureCore
import Testing

@testable import CaptureRecorder

/// The ride rules judge read by read (issue 46): where a ride begins and ends does not depend on
/// how many reads waited in a source's inbox when the recorder took them, so a trace played as
/// the box's receiver gives the same rides every run; and at its pace (`@speed=N`) the rules'
/// times are N times shorter.
@Suite("Rides judged read by read")
struct RideReadByReadTests: StateMachineSuite {
    /// The accelerometer alone (the receiver of `RideRulesTests.armed()` never speaks).
    static let accelerometer = 1

    /// One accelerometer read per 100 ms from `from` to `to` seconds, each arriving when taken:
    /// shaken (±2 m/s²) or standing.
    static func reads(from: Int, to: Int, shaking: Bool) -> [(samples: [Sample], arrived: Int64)] {
        (from * 10..<to * 10).map { tenth in
            let time = t0 + Int64(tenth) * 100
            let z = 9.81 + (shaking ? (tenth % 2 == 0 ? 2 : -2) : 0)
            return ([.motion(.accelerometer, MotionSample(timestamp: time, x: 0, y: 0, z: z))], time)
        }
    }

    static func take(_ machine: inout Machine, _ reads: [(samples: [Sample], arrived: Int64)]) -> [Action] {
        machine.take(reads, dropped: 0, capacity: 100_000, from: accelerometer)
    }

    /// Where the ride that `actions` began starts.
    static func begin(_ actions: [Action]) -> Int64? {
        for action in actions { if case .beginRide(let flush, _, .motion, _) = action { return flush.events.first?.timestamp } }
        return nil
    }

    @Test func aRideBeginsAtTheSameReadWhetherTheReadsAreTakenOneByOneOrAllAtOnce() throws {
        let reads = Self.reads(from: 0, to: 3, shaking: false) + Self.reads(from: 3, to: 6, shaking: true)
        var oneByOne = RideRulesTests.armed()
        var actions: [Action] = []
        for read in reads { actions += Self.take(&oneByOne, [read]) }
        var atOnce = RideRulesTests.armed()
        let taken = Self.take(&atOnce, reads)
        let start = try #require(Self.begin(actions))
        // The first shaken window closes at 4 s; the pre-roll (3 s) reaches back to 1 s.
        #expect(start == Self.t0 + 1_000)
        #expect(Self.begin(taken) == start, "taken at once, the ride began elsewhere")
        #expect(atOnce.state == oneByOne.state)
    }

    @Test func aRideEndsWhereStillWasSeenKeepingWhatWasTakenBeforeIt() throws {
        var machine = RideRulesTests.armed()
        var actions: [Action] = []
        // Standing, then riding, a flush every second.
        for second in 0..<13 {
            actions += Self.take(&machine, Self.reads(from: second, to: second + 1, shaking: (3..<13).contains(second)))
            actions += machine.flushDue(at: Self.t0 + Int64(second + 1) * 1000)
            if case .recording(0) = machine.state { actions += machine.began(measurement: 9, at: Self.t0 + Int64(second + 1) * 1000) }
        }
        #expect(machine.state == .recording(measurement: 9))
        // Standing from 13 s, taken in one go with no flush between (a busy moment): the window
        // of 13 s closes still at 14 s.
        actions += Self.take(&machine, Self.reads(from: 13, to: 15, shaking: false))
        for second in 15..<26 {
            actions += machine.flushDue(at: Self.t0 + Int64(second) * 1000)
            actions += Self.take(&machine, Self.reads(from: second, to: second + 1, shaking: false))
        }
        #expect(machine.state == .armed)
        let staged = Self.stagedFlushes(actions)
        let stop = try #require(staged.last?.events.last)
        #expect(stop.type == .lifecycleStop)
        #expect(stop.timestamp == Self.t0 + 14_000, "still was seen at the read of 14 s")
        // What was taken before still was seen is the ride's, though no flush staged it first.
        let kept = staged.flatMap(\.motion.accelerometer).map(\.timestamp)
        #expect(kept.last == Self.t0 + 13_900, "the ride's last sample: \(kept.last.map { $0 - Self.t0 } ?? -1)")
    }

    @Test func atATracesPaceTheRulesTimesAreShorter() {
        let settings = RideSettings(detect: .auto).playing(at: 60)
        #expect(settings.endAfterStill == 5_000 && settings.preRoll == 167 && settings.maxDuration == 720_000)
        #expect(settings.resumeWithin == RideSettings.standard.resumeWithin && settings.minDistance == 50)
        #expect(RideSettings(detect: .auto).playing(at: 1) == RideSettings(detect: .auto))
        // The detector's say lasts 5 s / 60 too: a verdict 100 ms old is stale.
        var detector = MotionDetector(pace: 60)
        detector.observe(.fix(Fix(timestamp: Self.t0, latitude: 51, longitude: 13, speed: 5)), at: Self.t0)
        #expect(detector.verdict(at: Self.t0 + 80) == .moving)
        #expect(detector.verdict(at: Self.t0 + 100) == nil)
    }
}
