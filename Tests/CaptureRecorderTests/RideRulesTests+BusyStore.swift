import CaptureCore
import CaptureStorage
import Testing

@testable import CaptureRecorder

/// A busy store (issue 28, item 5): ids reserved ahead, a ride's begin and end waiting in the flush
/// log while another process holds the database, and `capture stop` or a shutdown meanwhile.
extension RideRulesTests {
    static let busy = StoreError.busy(path: "/data/capture.sqlite")

    /// Armed, with ids 5 and 6 reserved: arming asked for them, the driver reports them.
    static func armedWithIDs() -> Machine {
        var machine = armed()
        #expect(machine.reservationDue(at: Self.t0).isEmpty, "arming asked for the ids already")
        machine.reserved([5, 6])
        return machine
    }

    @Test func armingReservesIDsAndAFailedReservationIsTriedAgainASecondLater() {
        var machine = Machine(sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 200, ride: Self.settings)
        #expect(machine.arm(modality: .bicycle, at: Self.t0) == [.reserveMeasurementIDs])
        #expect(machine.flushDue(at: Self.t0 + 200).isEmpty)
        // The store was busy: tried again, but not at every flush (a try keeps readers out).
        machine.reserved([])
        #expect(machine.flushDue(at: Self.t0 + 400).isEmpty)
        #expect(machine.flushDue(at: Self.t0 + 1000) == [.reserveMeasurementIDs])
        machine.reserved([3, 4])
        #expect(machine.flushDue(at: Self.t0 + 2200).isEmpty)
    }

    @Test func aRideBeginsUnderAReservedIDAtOnceAndABusyStoreKeepsItsBeginWaiting() throws {
        var world = World(machine: Self.armedWithIDs())
        world.run(5, speed: 0)
        world.run(3, speed: 5)
        let begin = try #require(world.actions.firstIndex { $0.beginsRide })
        guard case .beginRide(let flush, _, .motion, 5) = world.actions[begin] else {
            Issue.record("expected ride 5 to begin, got \(world.actions[begin])")
            return
        }
        #expect(flush.events.map(\.type) == [.lifecycleStart, .modalityTypeChange])
        #expect(world.machine.state == .recording(measurement: 5))
        // Its journal at once; committed at once if the store lets it; the next id reserved.
        let after = Array(world.actions[begin...])
        #expect(after.contains { if case .journal(.start, _) = $0 { true } else { false } })
        #expect(after.contains(.journal(.ride(.begun(by: .motion, preRollFrom: flush.events[0].timestamp)), at: nil)))
        #expect(after.contains(.commitStaged(patience: StagedCommits.lifecyclePatience)))
        #expect(after.contains(.reserveMeasurementIDs))
        // Another process holds the store: the begin waits in the flush log, the ride goes on.
        #expect(world.machine.storeFailed(Self.busy, during: .commitStaged(patience: 2)) == .wait)
        world.machine.reserved([])
        world.actions = []
        world.run(3, speed: 5)
        #expect(world.machine.state == .recording(measurement: 5) && world.machine.eventsWaiting)
        #expect(world.machine.failure == nil)
        #expect(world.staged.flatMap(\.motion.accelerometer).count == 30)
        #expect(world.actions.contains(.commitStaged(patience: StagedCommits.patience)))
        // No reservation while the store is busy; once what waited went in, one is tried.
        #expect(!world.actions.contains(.reserveMeasurementIDs))
        world.machine.caughtUp()
        #expect(world.machine.flushDue(at: Self.t0 + 12_000).contains(.reserveMeasurementIDs))
    }

    @Test func aRideEndedByStandingWhileTheStoreIsBusyWaitsAndTheNextRideIsItsOwn() throws {
        var world = World(machine: Self.armedWithIDs())
        world.run(2, speed: 0)
        world.run(30, speed: 5)
        world.machine.caughtUp()
        world.actions = []
        world.run(12, speed: 0)
        let end = try #require(world.actions.firstIndex { $0.endsRide })
        guard case .endRide(let stop, _, false, .motion) = world.actions[end] else {
            Issue.record("expected the ride to end by standing, got \(world.actions[end])")
            return
        }
        #expect(stop.events.map(\.type) == [.lifecycleStop])
        #expect(world.actions[end + 1] == .commitStaged(patience: StagedCommits.lifecyclePatience))
        // The store is busy: the end waits in the flush log; the recorder goes on, armed.
        #expect(world.machine.storeFailed(Self.busy, during: world.actions[end + 1]) == .wait)
        #expect(world.machine.state == .armed && world.machine.failure == nil && world.machine.eventsWaiting)
        #expect(world.machine.status(at: Self.t0 + 45_000).eventsWaiting == true)
        // Armed, a flush tries again (at most once a second), giving way at once.
        #expect(world.machine.flushDue(at: Self.t0 + 45_000).contains(.commitStaged(patience: StagedCommits.patience)))
        #expect(world.machine.storeFailed(Self.busy, during: .commitStaged(patience: 0.25)) == .wait)
        // Motion: the next ride begins under the next id, after the stop, while the stop waits.
        world.actions = []
        world.run(3, speed: 5)
        let begin = try #require(world.actions.firstIndex { $0.beginsRide })
        guard case .beginRide(let start, _, .motion, 6) = world.actions[begin] else {
            Issue.record("expected ride 6 to begin, got \(world.actions[begin])")
            return
        }
        #expect(world.machine.state == .recording(measurement: 6))
        #expect(try #require(start.events.first?.timestamp) >= stop.events[0].timestamp)
        #expect(world.actions.contains(.commitStaged(patience: StagedCommits.patience)))
        world.machine.caughtUp()
        #expect(!world.machine.eventsWaiting)
    }

    @Test func captureStopWhileTheStoreIsBusyEndsTheRideAndTheRecorderGoesOn() throws {
        var world = World(machine: Self.armedWithIDs())
        world.run(2, speed: 0)
        world.run(20, speed: 5)
        world.machine.caughtUp()
        guard case .applied(let actions, _) = world.machine.command(.stop, at: Self.t0 + 22_100, by: .control) else {
            Issue.record("the stop was not applied")
            return
        }
        let end = try #require(actions.firstIndex { $0.endsRide })
        guard case .endRide(let stop, _, false, .command) = actions[end] else {
            Issue.record("expected the ride to end by the stop, got \(actions[end])")
            return
        }
        #expect(stop.events.map(\.type) == [.lifecycleStop] && stop.events[0].timestamp == Self.t0 + 22_100)
        #expect(actions[end + 1] == .commitStaged(patience: StagedCommits.lifecyclePatience))
        #expect(world.machine.storeFailed(Self.busy, during: actions[end + 1]) == .wait)
        #expect(world.machine.state == .armed && !world.machine.isFinished && world.machine.failure == nil)
        world.actions = []
        world.run(3, speed: 5)
        let begin = try #require(world.actions.first { $0.beginsRide })
        guard case .beginRide(let start, _, .motion, 6) = begin else {
            Issue.record("expected ride 6 to begin, got \(begin)")
            return
        }
        // Motion right after the stop: its pre-roll does not reach back into the ride before.
        #expect(try #require(start.events.first?.timestamp) >= Self.t0 + 22_100)
        #expect(world.machine.state == .recording(measurement: 6))
        // The recorder's end (SIGTERM) with the events still waiting: the ride ends, the run
        // finishes, the driver commits what waits before it exits.
        let last = world.machine.shutdown(at: Self.t0 + 26_000)
        #expect(last.contains { if case .endRide(_, _, _, .command) = $0 { true } else { false } })
        #expect(world.machine.isFinished && world.machine.failure == nil && world.machine.eventsWaiting)
    }
}
