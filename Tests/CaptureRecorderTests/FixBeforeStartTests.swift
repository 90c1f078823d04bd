import CaptureCore
import Testing

@testable import CaptureRecorder

/// A fix is never stored outside its measurement's start and stop (issue 41, item 6; seed 1006 of
/// the simulated life): a live receiver's fix older than the track's start waits while the host
/// clock is not judged, goes in once a correction puts the track on GNSS time, and is dropped,
/// counted, once the clock is judged right or the policy leaves it alone. No threads, no files.
@Suite("Fixes older than their measurement's start")
struct FixBeforeStartTests: StateMachineSuite {
    static let day: Int64 = 86_400_000

    /// A receiver (GNSS clock) recording measurement 7 from `t0` on the host clock.
    static func recording(gnssTime: GNSSTimePolicy = .auto) throws -> Machine {
        var machine = Machine(sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 1000, gnssTime: gnssTime)
        _ = try machine.start(modality: .bicycle, at: t0)
        _ = machine.began(measurement: 7, at: t0)
        return machine
    }

    /// One second: a fix stamped `gnss`, arrived at `host`, then a flush.
    static func second(_ machine: inout Machine, gnss: Int64, host: Int64) -> [Action] {
        let fix = Sample.fix(Fix(timestamp: gnss, latitude: 51, longitude: 13, speed: 5))
        return machine.take([([fix], host)], dropped: 0, capacity: 10, from: 0) + machine.flushDue(at: host + 400)
    }

    /// The host clock three days ahead of a receiver with true time: the first fixes wait until
    /// the clock is judged, then go in on GNSS time; the stop brackets every fix.
    @Test func aRecorderDaysAheadStoresNoFixBeforeItsStartAndBracketsEveryFix() throws {
        var machine = try Self.recording()
        var actions: [Action] = []
        for second in 0..<Int64(GNSSClock.minimumFixes - 1) {
            actions += Self.second(&machine, gnss: Self.t0 + 1000 * second - 3 * Self.day, host: Self.t0 + 1000 * second)
        }
        // Cut here, the measurement holds no fix 3 days before its start.
        #expect(Self.stagedFlushes(actions).flatMap(\.fixes).isEmpty)
        for second in Int64(GNSSClock.minimumFixes - 1)..<10 {
            actions += Self.second(&machine, gnss: Self.t0 + 1000 * second - 3 * Self.day, host: Self.t0 + 1000 * second)
        }
        let correction = -3 * Self.day
        #expect(actions.contains(.moveToGNSSTime(correction: correction, motion: false)))
        guard case .applied(let stop, _) = machine.command(.stop, at: Self.t0 + 10_000, by: .control) else {
            Issue.record("the stop was not applied")
            return
        }
        let fixes = Self.stagedFlushes(actions + stop).flatMap(\.fixes).map(\.timestamp)
        // None lost: the fixes that waited went in, in order.
        #expect(fixes == (0..<10).map { Self.t0 + 1000 * $0 - 3 * Self.day })
        let end = try #require(Self.stagedFlushes(stop).last?.events.last)
        #expect(end.type == .lifecycleStop)
        #expect(fixes.allSatisfy { $0 >= Self.t0 + correction && $0 <= end.timestamp })
        #expect(machine.status(at: Self.t0 + 10_000).droppedWhilePaused == 0)
    }

    /// Stale bytes in a tty buffer: a fix three days old on a host clock that is right waits,
    /// and is dropped, counted, once the clock is judged right.
    @Test func aStaleFixFromBeforeTheSourceOpenedIsDroppedAndCounted() throws {
        var machine = try Self.recording()
        var actions = Self.second(&machine, gnss: Self.t0 + 200 - 3 * Self.day, host: Self.t0 + 300)
        for second in Int64(1)...8 {
            actions += Self.second(&machine, gnss: Self.t0 + 1000 * second - 100, host: Self.t0 + 1000 * second)
        }
        let fixes = Self.stagedFlushes(actions).flatMap(\.fixes).map(\.timestamp)
        #expect(fixes == (1...8).map { Self.t0 + 1000 * $0 - 100 })
        #expect(machine.status(at: Self.t0 + 9_000).droppedWhilePaused == 1)
    }

    /// A policy that never corrects: such a fix is dropped at once, counted; none waits.
    @Test func withoutCorrectionsAFixBeforeTheStartIsDroppedAtOnce() throws {
        var machine = try Self.recording(gnssTime: .never)
        let actions = Self.second(&machine, gnss: Self.t0 - Self.day, host: Self.t0 + 1000)
        #expect(Self.stagedFlushes(actions).flatMap(\.fixes).isEmpty)
        #expect(machine.status(at: Self.t0 + 1000).droppedWhilePaused == 1)
    }
}
