import CaptureCore
import CaptureStorage
import Foundation
import Testing

@testable import CaptureSimulation

/// The simulated life of a box (docs/faults.md, "The simulated life"): the same seed gives the
/// same event log, the invariants catch what they name, and short lives on fixed seeds keep
/// every one. In process: the real recorder, store and flush log on tmpfs, a simulated clock.
@Suite("A box's simulated life", .serialized)
struct LifeTests {
    /// Every invariant a life broke, with the event it broke at.
    static func broken(_ result: LifeResult) -> [String] { result.violations.map { "#\($0.event) \($0.violation)" } }

    /// The end of a life's event log.
    static func tail(_ result: LifeResult) -> String { result.log.suffix(60).joined(separator: "\n") }

    @Test func theSameSeedGivesTheSameEventLogByteForByte() throws {
        let first = try Life.run(seed: 4_141, days: 2)
        let second = try Life.run(seed: 4_141, days: 2)
        #expect(first.events == LifePlan.events(seed: 4_141, days: 2) || first.violation != nil)
        #expect(first.log.joined(separator: "\n") == second.log.joined(separator: "\n"))
        #expect(first.steps > 1_000)
        // Another seed lives another life.
        #expect(LifePlan.events(seed: 4_142, days: 2) != LifePlan.events(seed: 4_141, days: 2))
    }

    @Test func everyEventReadsBackFromItsLine() {
        let events = LifePlan.events(seed: 99, days: 5)
        #expect(events.count > 50)
        for event in events { #expect(SimulatedEvent(line: event.line) == event, "\(event.line)") }
        #expect(SimulatedEvent(line: "move s=3 speed=-1.05 heading=0.00") == .move(seconds: 3, speed: -1.05, heading: 0))
        #expect(SimulatedEvent(line: "hover s=3") == nil)
    }

    /// A ride that moved, finished and never delivered, removed behind the recorder's back:
    /// `committed-kept` says so. Removed once delivered, nothing is said.
    @Test func theLedgerCatchesACommittedRideThatGoes() throws {
        let ride: [SimulatedEvent] = [
            .collector(.down), .boot(offFor: 0, skew: 0), .stand(seconds: 30), .move(seconds: 120, speed: 5, heading: 200),
            .stand(seconds: 330),
        ]
        let directory = try Life.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let box = SimulatedBox(directory: directory, collector: SimulatedCollector(seed: 1))
        var ledger = Ledger(minDistance: 50, budget: 1 << 30)
        var steps = 0
        for event in ride {
            try Life.perform(event, on: box, ledger: &ledger, steps: &steps)
        }
        try ledger.check(box: box)
        #expect(ledger.violations == [])
        let store = try #require(box.recorder?.store)
        let finished = try store.measurements().filter { $0.status == .finished }
        try #require(finished.count == 1)
        try store.deleteMeasurement(finished[0].id, directory: directory)
        try ledger.check(box: box)
        #expect(ledger.violations.map(\.invariant) == ["committed-kept"])
        box.cut(after: .max)
    }

    /// Issue 41, item 1: a ride continued after a cut inside `ride.resume_within` keeps what it
    /// committed before the cut when it then stands still. Needs the fix of item 1.
    @Test func aContinuedRideKeepsWhatItCommittedBeforeTheCut() throws {
        let events: [SimulatedEvent] = [
            .boot(offFor: 0, skew: 0), .stand(seconds: 30), .move(seconds: 400, speed: 5, heading: 200), .cut(actions: 0),
            .boot(offFor: 2_000, skew: 0), .stand(seconds: 400),
        ]
        let result = try Life.run(seed: 1, events: events)
        #expect(Self.broken(result) == [], "\(Self.tail(result))")
    }

    /// Issue 41, item 1, the other way (the shrunk log of seed 118): a ride continued after a
    /// cut whose receiver then has no fix for longer than `ride.end_after_still` keeps what it
    /// committed. Needs the fix of item 1.
    @Test func aContinuedRideWithoutAFixForMinutesKeepsWhatItCommitted() throws {
        let events: [SimulatedEvent] = [
            .boot(offFor: 90_000, skew: -113_431_000), .move(seconds: 421, speed: 6.13, heading: 263.89),
            .boot(offFor: 22_000, skew: -113_431_000), .noFix(seconds: 326), .move(seconds: 524, speed: 5.23, heading: 251.4),
        ]
        let result = try Life.run(seed: 118, events: events)
        #expect(Self.broken(result) == [], "\(Self.tail(result))")
    }

    /// Issue 41, item 2: a push of a few metres ended by a cut and a boot after
    /// `ride.resume_within` is not kept as a ride. Needs the fix of item 2.
    @Test func aShortPushEndedByPowerIsNotKept() throws {
        let events: [SimulatedEvent] = [
            .boot(offFor: 0, skew: 0), .stand(seconds: 30), .move(seconds: 20, speed: 1.5, heading: 90), .stand(seconds: 200),
            .cut(actions: 0), .boot(offFor: 600_000, skew: 0), .stand(seconds: 60),
        ]
        let result = try Life.run(seed: 1, events: events)
        #expect(Self.broken(result) == [], "\(Self.tail(result))")
    }

    /// Seed 2011, shrunk: a ride continued after a cut whose receiver is dark while the bike
    /// rides on 308 m and then stands. The first fixes after the boot are movement from the
    /// last committed fix, stored; the ride is not kept as a few metres of stored fixes judged
    /// by a way to fixes it dropped.
    @Test func aContinuedRideThatMovedInTheDarkStoresTheFixesThatGotThere() throws {
        let events: [SimulatedEvent] = [
            .boot(offFor: 34_000, skew: -216_006_000), .move(seconds: 6, speed: 1.31, heading: 143.51),
            .boot(offFor: 76_000, skew: -216_006_000), .noFix(seconds: 60), .move(seconds: 48, speed: 6.42, heading: 165.29),
            .stand(seconds: 722),
        ]
        let result = try Life.run(seed: 2_011, events: events)
        #expect(Self.broken(result) == [], "\(Self.tail(result))")
    }

    /// Seed 530019's shrunk log with the push in the dark under the detector's 25 m: the first
    /// fixes after it stand, held and dropped as the ride's still tail. The ride is judged by
    /// the way its stored fixes came (36 m, discarded), not with the 18 m to the fixes it dropped.
    @Test func aContinuedRideIsJudgedByTheWayItsStoredFixesCame() throws {
        let events: [SimulatedEvent] = [
            .boot(offFor: 26_000, skew: 0), .move(seconds: 25, speed: 1.46, heading: 298.65), .boot(offFor: 9_000, skew: 0),
            .noFix(seconds: 65), .move(seconds: 14, speed: 1.3, heading: 297.51), .stand(seconds: 526),
        ]
        let result = try Life.run(seed: 530_019, events: events)
        #expect(Self.broken(result) == [], "\(Self.tail(result))")
    }

    /// Finds of a batch of fresh seeds (docs/faults.md, "A batch of fresh seeds"), shrunk, as
    /// the event log prints them: a ride continued after the bike went on while the box was off
    /// (530021), one begun on a clock 1.6 days ahead, continued after a dark ride (530023), and
    /// one on a clock 3 s behind, too little to correct, whose last fixes lay past its stop
    /// (4253352233, in CI). And seed 1006's find (docs/faults.md, "Found before issue 41 item
    /// 1's fix") with a way ridden in the dark, so that its ride is not discarded as short: a
    /// clock 2.6 days ahead, a ride begun on the receiver's first fixes and cut before
    /// `GNSSClock` judged the clock, its fixes 2.6 days before its host-clock start.
    static let found: [UInt64: [String]] = [
        1_006: [
            "boot off=71000 skew=225782000", "nofix s=6", "move s=7 speed=1.36 heading=84.41", "nofix s=120",
            "move s=121 speed=6.00 heading=84.41", "boot off=407000 skew=225782000",
        ],
        530_021: [
            "boot off=6188000 skew=0", "move s=19 speed=1.43 heading=157.79", "cut actions=0",
            "move s=52 speed=1.39 heading=187.00", "boot off=51000 skew=0", "stand s=687",
        ],
        530_023: [
            "boot off=27407000 skew=136739000", "stand s=36", "nofix s=88", "move s=91 speed=3.38 heading=269.92",
            "boot off=69000 skew=136739000", "nofix s=253", "move s=65 speed=3.08 heading=284.34", "stand s=761",
        ],
        4_253_352_233: ["boot off=77000 skew=-3000", "move s=398 speed=4.82 heading=166.87", "stand s=1154"],
    ]

    @Test(arguments: [530_021, 530_023, 4_253_352_233, 1_006] as [UInt64]) func freshSeedsFindsKeepEveryInvariant(seed: UInt64) throws {
        let lines = Self.found[seed] ?? []
        let events = lines.compactMap(SimulatedEvent.init(line:))
        try #require(events.count == lines.count && !events.isEmpty)
        let result = try Life.run(seed: seed, events: events)
        #expect(Self.broken(result) == [], "seed \(seed): \(Self.tail(result))")
    }

    /// Short lives on fixed seeds keep every invariant. Needs the fixes of items 1 and 2.
    @Test(arguments: [11, 12, 13] as [UInt64]) func shortLivesKeepEveryInvariant(seed: UInt64) throws {
        let result = try Life.run(seed: seed, days: 2)
        #expect(Self.broken(result) == [], "seed \(seed): \(Self.tail(result))")
    }
}
