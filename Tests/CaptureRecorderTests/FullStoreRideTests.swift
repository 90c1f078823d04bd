import CaptureCore
import CaptureStorage
import Foundation
import Testing

@testable import CaptureRecorder

/// A store full of rides the collector has not taken (nothing may be pruned), with
/// `ride.detect: auto`, on the recorder's state value, event by event (issue 41, item 6): the
/// recording does not end; the ride under way ends by the full store, and the recorder waits
/// armed, writing nothing, until a look for room finds some.
@Suite("A full store waited out armed, event by event")
struct FullStoreRideTests: StateMachineSuite {
    static let full = StoreError.diskFull(path: "/data/capture.sqlite")

    /// Ride 5 under way for 30 s, what it staged in the database.
    static func riding() -> RideRulesTests.World {
        var world = RideRulesTests.World(machine: RideRulesTests.armedWithIDs())
        world.run(2, speed: 0)
        world.run(30, speed: 5)
        world.machine.caughtUp()
        world.actions = []
        return world
    }

    @Test func aFullStoreEndsTheRideAndTheRecorderWaitsArmedWritingNothing() throws {
        var world = Self.riding()
        #expect(world.machine.state == .recording(measurement: 5))
        // No policy to prune by: the full store is waited out, not an end.
        #expect(world.machine.storeFailed(Self.full) == .waitForRoom)
        let now = Self.t0 + 32_500
        let actions = world.machine.outOfRoom(at: now)
        let end = try #require(actions.firstIndex { $0.endsRide })
        guard case .endRide(let stop, _, false, .fullStore) = actions[end] else {
            Issue.record("expected the ride to end by the full store, kept, got \(actions[end])")
            return
        }
        #expect(stop.events.map(\.type) == [.lifecycleStop])
        #expect(stop.events.first?.timestamp == now)
        #expect(actions.contains { if case .journal(.ride(.ended(by: .fullStore, _, discarded: false)), _) = $0 { true } else { false } })
        #expect(world.machine.state == .armed && world.machine.failure == nil && !world.machine.isFinished)
        #expect(world.machine.eventsWaiting, "what did not fit waits in the flush log")
        let status = try #require(world.machine.status(at: now).ride)
        #expect(status.state == .waitingForRoom && status.since == now && status.reason == "store-full" && status.lastRide == 5)
        // Told again (the ride's end did not fit either): nothing more.
        #expect(world.machine.outOfRoom(at: now + 10).isEmpty)
        #expect(world.machine.storeFailed(Self.full, during: .commitStaged(patience: 2)) == .waitForRoom)
        // Moving on: no ride begins, no id is reserved; what waits is tried again, and the store
        // is looked at for room every 2 s.
        world.run(10, speed: 5)
        #expect(!world.actions.contains { $0.beginsRide }, "\(world.actions)")
        #expect(!world.actions.contains(.reserveMeasurementIDs))
        #expect(world.actions.filter { $0 == .checkRoom }.count == 4, "\(world.actions)")
        #expect(world.actions.contains(.commitStaged(patience: StagedCommits.patience)))
        #expect(world.staged.isEmpty, "nothing is staged while waiting")
        // No room; then room while the ride's end still waits: not yet.
        #expect(world.machine.roomChecked(false, at: Self.t0 + 43_000).isEmpty)
        #expect(world.machine.roomChecked(true, at: Self.t0 + 43_000).isEmpty)
        #expect(world.machine.status(at: Self.t0 + 43_000).ride?.state == .waitingForRoom)
        // The end went in; room: armed as before, and motion begins a ride under the next id.
        world.machine.caughtUp()
        _ = world.machine.roomChecked(true, at: Self.t0 + 44_000)
        #expect(world.machine.status(at: Self.t0 + 44_000).ride?.state == .armed)
        #expect(world.machine.status(at: Self.t0 + 44_000).ride?.reason == nil)
        world.actions = []
        world.run(3, speed: 5)
        let begin = try #require(world.actions.firstIndex { $0.beginsRide })
        guard case .beginRide(_, _, .motion, 6) = world.actions[begin] else {
            Issue.record("expected ride 6 to begin, got \(world.actions[begin])")
            return
        }
        #expect(!world.actions.contains(.checkRoom))
    }

    @Test func withARetentionPolicyTheFullStoreIsPrunedFirstAndWaitedOutWhenNothingWent() {
        var machine = Machine(
            sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 1000, canPrune: true, ride: RideRulesTests.settings)
        machine.arm(modality: .bicycle, at: Self.t0)
        #expect(machine.storeFailed(Self.full, during: .commitStaged(patience: 2)) == .pruneAndRetry)
        #expect(machine.pruned(removed: 1, after: Self.full) == .retry)
        #expect(machine.pruned(removed: 0, after: Self.full) == .waitForRoom)
        #expect(!machine.isFinished)
    }

    @Test func withoutRideDetectionAFullStoreStillEndsTheRecording() throws {
        var machine = try RecorderStateMachineTests.recording()
        guard case .stop(let actions) = machine.storeFailed(Self.full) else {
            Issue.record("expected the recording to end")
            return
        }
        #expect(actions.first == .commitWhatFits)
        #expect(machine.failure == Self.full)
        #expect(machine.outOfRoom(at: Self.t0).isEmpty)
    }

    @Test func armingOnAStoreWithNoRoomWaitsAtOnceAndReservesNothing() {
        var machine = Machine(sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 1000, ride: RideRulesTests.settings)
        #expect(machine.outOfRoom(at: Self.t0).isEmpty)
        #expect(machine.arm(modality: .bicycle, at: Self.t0).isEmpty, "no reservation: it writes")
        #expect(machine.status(at: Self.t0).ride?.state == .waitingForRoom)
        #expect(machine.flushDue(at: Self.t0 + 2_000).contains(.checkRoom))
    }
}
