import CaptureCore
import Testing

@testable import CaptureRecorder

/// A ride's measurement holds every fix it kept between its start and its stop, when the
/// receiver's time and a host clock taken to be right (no correction) differ by up to
/// `GNSSClock.threshold`; a receiver further off moves no mark.
@Suite("A ride's span takes in its fixes")
struct RideSpanTests {
    typealias World = RideRulesTests.World

    /// A ride of 30 s between standing, with the receiver `ahead` ms ahead of the host clock: its
    /// start and stop, and the times of the fixes it kept.
    static func ride(ahead: Int64) throws -> (start: Int64, stop: Int64, fixes: [Int64]) {
        var world = World(machine: RideRulesTests.armed())
        world.fixAhead = ahead
        world.run(5, speed: 0)
        world.run(30, speed: 5)
        world.run(14, speed: 0)
        let begin = try #require(
            world.actions.lazy.compactMap { action -> Flush? in
                if case .beginRide(let flush, _, _, _) = action { return flush } else { return nil }
            }.first)
        let start = try #require(begin.events.first { $0.type == .lifecycleStart }?.timestamp)
        let stop = try #require(world.staged.flatMap(\.events).last { $0.type == .lifecycleStop }?.timestamp)
        return (start, stop, ([begin] + world.staged).flatMap(\.fixes).map(\.timestamp))
    }

    @Test(arguments: [-GNSSClock.threshold, -1_000, 0, 1_000, GNSSClock.threshold])
    func everyFixKeptLiesWithinTheRide(ahead: Int64) throws {
        let ride = try Self.ride(ahead: ahead)
        #expect(!ride.fixes.isEmpty)
        #expect(ride.fixes.allSatisfy { (ride.start...ride.stop).contains($0) }, "start \(ride.start), stop \(ride.stop): \(ride.fixes)")
    }

    @Test func aReceiverFarOffMovesNeitherMark() throws {
        let onTime = try Self.ride(ahead: 0)
        let far = try Self.ride(ahead: 60_000)
        #expect(far.start == onTime.start && far.stop == onTime.stop)
    }

    @Test func aCaptureStopTakesInTheNewestFix() throws {
        var world = World(machine: RideRulesTests.armed())
        world.fixAhead = 2_000
        world.run(2, speed: 0)
        world.run(20, speed: 5)
        let now = RideRulesTests.t0 + Int64(world.second) * 1000
        guard case .applied(let actions, _) = world.machine.command(.stop, at: now, by: .control) else {
            Issue.record("the stop was refused")
            return
        }
        world.actions += actions
        let stop = try #require(world.staged.flatMap(\.events).last { $0.type == .lifecycleStop }?.timestamp)
        let newest = try #require(world.staged.flatMap(\.fixes).last?.timestamp)
        #expect(newest > now && stop == newest)
    }

    @Test func theTimeBaseAgreesWithinTheThresholdOnlyWithoutACorrection() {
        var base = RecorderStateMachine.TimeBase(policy: .auto, hostSynchronized: false)
        let t0 = RideRulesTests.t0
        #expect(base.agrees(gnss: t0 + GNSSClock.threshold, with: t0) && base.agrees(gnss: t0 - GNSSClock.threshold, with: t0))
        #expect(!base.agrees(gnss: t0 + GNSSClock.threshold + 1, with: t0))
        base.continuing(60_000)
        #expect(!base.agrees(gnss: t0, with: t0), "a corrected receiver is on the events' clock already")
    }
}
