import CaptureCore
import CaptureStorage
import Foundation
import Testing

@testable import CaptureRecorder

/// A ride that begins with no id reserved while another process holds the store (issue 41,
/// item 6), event by event: the begin waits and is tried again at most once a second; the
/// ride's samples wait in the recording; once the store gives the id, they are staged.
@Suite("A ride's begin waiting for a busy store, event by event")
struct BusyRideBeginTests: StateMachineSuite {
    /// A driver that reports no id for a ride begun (the store is busy), unlike
    /// `RideRulesTests.World`: each second one fix and ten accelerometer samples, then a flush.
    struct World {
        var machine: Machine
        var second = 0
        var north = 0.0
        var actions: [Action] = []

        mutating func run(_ seconds: Int, speed: Double) {
            for _ in 0..<seconds {
                let start = BusyRideBeginTests.t0 + Int64(second) * 1000
                north += speed
                let samples = (0..<10).map { index in
                    Sample.motion(
                        .accelerometer,
                        MotionSample(timestamp: start + Int64(index) * 100, x: 0, y: 0, z: 9.81 + (speed > 0 ? (index % 2 == 0 ? 2 : -2) : 0)))
                }
                actions += machine.take([(samples, start + 950)], dropped: 0, capacity: 1000, from: 1)
                let fix = Fix(timestamp: start + 500, latitude: 51 + north / 111_320, longitude: 13, speed: speed)
                actions += machine.take([([.fix(fix)], start + 600)], dropped: 0, capacity: 1000, from: 0)
                second += 1
                actions += machine.flushDue(at: BusyRideBeginTests.t0 + Int64(second) * 1000)
            }
        }

        var staged: [Flush] { BusyRideBeginTests.stagedFlushes(actions) }
    }

    @Test func aRideBegunWithNoIDReservedWaitsForTheStoreAndKeepsItsSamples() throws {
        // Armed with no id reserved: the reservation found the store busy.
        var world = World(machine: RideRulesTests.armed())
        world.machine.reserved([])
        world.run(2, speed: 0)
        world.run(3, speed: 5)
        let index = try #require(world.actions.firstIndex { $0.beginsRide })
        let begin = world.actions[index]
        guard case .beginRide(_, _, .motion, nil) = begin else {
            Issue.record("expected a ride to begin with no id, got \(begin)")
            return
        }
        #expect(world.machine.storeFailed(RideRulesTests.busy, during: begin) == .wait)
        #expect(world.machine.state == .recording(measurement: 0) && world.machine.failure == nil)
        // Riding on while the store is held: the begin is tried again, nothing is staged.
        world.actions = []
        var tries = 0
        for second in 0..<5 {
            world.run(1, speed: 5)
            let retried = world.actions.filter { $0 == begin }.count
            tries += retried
            #expect(retried <= 1, "second \(second): tried \(retried) times")
            world.actions.removeAll { $0 == begin }
        }
        #expect(tries >= 4, "\(tries) tries in 5 s")
        #expect(world.staged.isEmpty, "staged before the ride had an id: \(world.staged.count)")
        // The store gives the id: what the ride took meanwhile is staged at the next flush.
        world.actions = world.machine.began(measurement: 9, at: Self.t0 + 11_000)
        world.run(1, speed: 5)
        #expect(world.machine.state == .recording(measurement: 9))
        #expect(!world.actions.contains(begin))
        let samples = world.staged.flatMap(\.motion.accelerometer).count
        #expect(samples >= 60, "\(samples) samples staged: the ride's samples since it began")
    }

    @Test func aRideWhoseBeginStillWaitsWhenStoppedLeavesNothingToStop() throws {
        var world = World(machine: RideRulesTests.armed())
        world.machine.reserved([])
        world.run(2, speed: 0)
        world.run(3, speed: 5)
        let begin = try #require(world.actions.first { $0.beginsRide })
        #expect(world.machine.storeFailed(RideRulesTests.busy, during: begin) == .wait)
        guard case .applied(let actions, _) = world.machine.command(.stop, at: Self.t0 + 6_000, by: .control) else {
            Issue.record("capture stop was refused")
            return
        }
        #expect(!actions.contains { $0.endsRide })
        #expect(world.machine.state == .armed && world.machine.failure == nil)
        #expect(world.machine.flushDue(at: Self.t0 + 8_000).allSatisfy { $0 != begin })
    }
}
