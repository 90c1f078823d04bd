import CaptureCore
import Testing

@testable import CaptureRecorder

/// A ride's measurement holds every fix it kept between its start and its stop, when the
/// receiver's time and a host clock taken to be right (no correction) differ by up to
/// `GNSSClock.threshold`; a receiver further off moves no mark.
@Suite("A ride's span takes in its fixes")
struct RideSpanTests: StateMachineSuite {
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

    /// Issue 41 item 6 (seed 1006): a host clock 2.6 days ahead of the receiver, a ride begun on
    /// its first fixes, before `GNSSClock` has judged the clock. Cut after any action, what the
    /// store holds (the start as moved so far, the fixes staged) has every fix at or after the
    /// start; the ride's stop takes them in too. The measurement moved once, onto the first
    /// fix's time; the clock's judgement only confirmed it.
    @Test func aRideBegunBeforeTheClockIsJudgedStartsAtOrBeforeItsFixesWhereverItIsCut() throws {
        let ahead: Int64 = -225_782_000
        var machine = Machine(
            sources: [.init(name: "gpsd", clock: .gnss), .init(name: "iio:iio:device0")], flushInterval: 1000,
            hostSynchronized: false, ride: RideRulesTests.settings)
        machine.arm(modality: .bicycle, at: Self.t0)
        var world = World(machine: machine)
        world.fixAhead = ahead
        world.run(1, speed: 0)
        world.run(8, speed: 5)
        let begin = try #require(world.actions.firstIndex { $0.beginsRide })
        guard case .beginRide(let flush, _, _, _) = world.actions[begin] else { return }
        let begun = try #require(flush.events.first { $0.type == .lifecycleStart }?.timestamp)
        // A cut after each action leaves what the actions before it staged and moved.
        var start = begun
        var fixes: [Int64] = []
        for action in world.actions[begin...] {
            if case .moveToGNSSTime(let correction, _) = action { start += correction }
            fixes += Self.stagedFlushes([action]).flatMap(\.fixes).map(\.timestamp)
            #expect(fixes.allSatisfy { $0 >= start }, "cut after \(action): start \(start), fixes \(fixes)")
        }
        #expect(fixes.count >= 5)
        world.run(12, speed: 0)
        let stop = try #require(world.staged.flatMap(\.events).last { $0.type == .lifecycleStop }?.timestamp)
        let kept = world.staged.flatMap(\.fixes).map(\.timestamp)
        #expect(kept.allSatisfy { (start...stop).contains($0) }, "start \(start), stop \(stop): \(kept)")
        // Each fix arrives 100 ms after its GNSS time (World): that is the offset taken.
        let moves = world.actions.compactMap { action -> Int64? in
            if case .moveToGNSSTime(let correction, _) = action { correction } else { nil }
        }
        #expect(moves == [ahead - 100])
        #expect(world.machine.status(at: Self.t0 + 21_000).clock?.correctionMs == ahead - 100)
    }

    /// A fix older than its track's start by more than the threshold, on a host clock judged
    /// right, is stale (bytes left in a tty buffer when the source opened): it is not stored.
    @Test func aStaleFixOnAClockJudgedRightIsNotStored() throws {
        var world = World(machine: RideRulesTests.armed())
        world.run(10, speed: 0)
        world.run(10, speed: 5)
        #expect(world.actions.contains { $0.beginsRide })
        let stale = Fix(timestamp: Self.t0 - 60_000, latitude: 51, longitude: 13, speed: 5)
        let now = Self.t0 + 20_000
        world.actions += world.machine.take([([.fix(stale)], now + 100)], dropped: 0, capacity: 1000, from: 0)
        world.actions += world.machine.flushDue(at: now + 1000)
        let fixes = world.staged.flatMap(\.fixes).map(\.timestamp)
        #expect(!fixes.isEmpty && !fixes.contains(stale.timestamp))
        #expect(!world.actions.contains { if case .moveToGNSSTime = $0 { true } else { false } })
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
