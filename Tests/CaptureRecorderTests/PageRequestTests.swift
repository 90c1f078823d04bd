import CaptureCore
import Testing

@testable import CaptureRecorder

/// `mark` and `begin` over the control socket (the page's buttons): a marker as a short press
/// makes, a ride begun as a long press begins one; refused where there is nothing to mark or a
/// ride is under way already.
@Suite struct PageRequestTests: StateMachineSuite {
    @Test func markWhileRecordingIsAMarkerByItsSource() {
        var world = ButtonPressTests.recording()
        let fix = world.machine.lastFix
        let now = Self.t0 + 11_800
        let result = world.machine.markRequested(at: now, by: "page")
        let marker = Marker(time: now, near: fix, source: "page")
        #expect(result == .applied([.journal(.marker(marker), at: now)], outcome: nil))
        #expect(marker.latitude != nil)
    }

    @Test func markWhileArmedIsRefused() {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        world.run(2, speed: 0)
        #expect(world.machine.markRequested(at: Self.t0 + 2_000, by: "page") == .refused(.notOpen(state: .idle)))
    }

    @Test func beginWhileArmedBeginsARideCountedAsByCommand() {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        world.run(5, speed: 0)
        guard case .applied(let actions, _) = world.machine.beginRequested(at: Self.t0 + 5_000) else {
            Issue.record("begin was not applied")
            return
        }
        #expect(actions.contains { if case .beginRide(_, _, .command, _) = $0 { true } else { false } })
        #expect(RideEvent.Begin.command.count == .begunByCommand)
        // A second begin finds the ride under way.
        if case .refused(.alreadyStarted) = world.machine.beginRequested(at: Self.t0 + 5_100) {} else {
            Issue.record("a second begin was not refused")
        }
    }
}
