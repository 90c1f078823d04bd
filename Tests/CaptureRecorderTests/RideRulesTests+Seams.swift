import CaptureCore
import CaptureStorage
import Testing

@testable import CaptureRecorder

/// A ride cut in two by size (`ride.max_duration`, the collector's payload limit): it goes on as a new
/// measurement, with nothing lost at the seam.
extension RideRulesTests {
    /// A machine recording measurement 1 from `t0` with detection off and `settings`.
    static func recording(_ settings: RideSettings) throws -> Machine {
        var machine = Machine(
            sources: [.init(name: "gpsd", clock: .gnss), .init(name: "iio:iio:device0")], flushInterval: 1000,
            hostSynchronized: true, ride: settings)
        _ = try machine.start(modality: .car, at: t0)
        _ = machine.began(measurement: 1, at: t0)
        return machine
    }

    /// Checks a seam: the old measurement's samples, its stop, then the new one's start and
    /// samples; every accelerometer sample once, none lost.
    static func checkSeam(_ actions: [Action], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        let end = try #require(actions.firstIndex { $0.endsRide }, sourceLocation: sourceLocation)
        guard case .endRide(_, _, false, .size) = actions[end] else {
            Issue.record("expected a seam, got \(actions[end])", sourceLocation: sourceLocation)
            return 0
        }
        let begin = try #require(actions[end...].firstIndex { $0.beginsRide }, sourceLocation: sourceLocation)
        #expect(begin > end, sourceLocation: sourceLocation)
        let flushes = { (range: Range<Int>) in stagedFlushes(actions[range]) }
        // The old measurement's flushes, its stop (the seam's `endRide`) last: from its beginning
        // (the last one begun before the seam).
        let first = actions[..<end].lastIndex { $0.beginsRide } ?? 0
        let before = flushes(first..<end + 1)
        let stop = try #require(before.last?.events.last, sourceLocation: sourceLocation)
        #expect(stop.type == .lifecycleStop, sourceLocation: sourceLocation)
        guard case .beginRide(let start, _, .size, _) = actions[begin] else { return 0 }
        #expect(start.events.first?.timestamp == stop.timestamp, sourceLocation: sourceLocation)
        let old = before.flatMap(\.motion.accelerometer).map(\.timestamp)
        let new = flushes(begin..<actions.count).flatMap(\.motion.accelerometer).map(\.timestamp)
        #expect(old.allSatisfy { $0 < stop.timestamp } && new.allSatisfy { $0 >= stop.timestamp }, sourceLocation: sourceLocation)
        let all = old + new
        // One sample every 100 ms, each once.
        #expect(all == (0..<all.count).map { (all.first ?? 0) + Int64($0) * 100 }, sourceLocation: sourceLocation)
        return stop.timestamp
    }

    @Test func aRideLongerThanMaxDurationGoesOnAsANewMeasurementWithNothingLostAtTheSeam() throws {
        var world = World(machine: try Self.recording(RideSettings(maxDuration: 60_000)))
        world.run(70, speed: 5)
        let seam = try Self.checkSeam(world.actions)
        #expect(seam > Self.t0 + 58_000 && seam <= Self.t0 + 60_000)
        #expect(world.machine.state == .recording(measurement: 9))
        #expect(world.actions.contains(.journal(.ride(.begun(by: .size, preRollFrom: seam)), at: nil)))
        #expect(world.actions.filter { $0.endsRide }.count == 1)
        // The part after the seam belongs to a ride that moved: never discarded for its own distance.
        var auto = RideSettings(detect: .auto, maxDuration: 60_000)
        auto.minDistance = 1_000_000
        world = World(machine: Self.armed(auto))
        world.run(2, speed: 0)
        world.run(62, speed: 5)
        _ = try Self.checkSeam(world.actions)
        #expect(world.machine.shutdown(at: Self.t0 + 64_500).first { $0.endsRide }?.discards == false)
    }

    @Test func aRideIsContinuedBeforeItsTransferFileCouldPassThePayloadLimit() throws {
        let limit: Int64 = 80_000
        var world = World(machine: try Self.recording(RideSettings(payloadLimit: limit)))
        world.run(60, speed: 5)
        _ = try Self.checkSeam(world.actions)
        let first = try #require(world.actions.capturedOfEnd)
        #expect(TransferSizeBound.bytes(first) < limit)
        #expect(first.accelerometer > 200)
    }
}
