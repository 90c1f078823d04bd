import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureRecorder

/// A ride cut by power is judged as a whole (issue 41, item 1), event by event: a continued ride's
/// rules start from the way its committed fixes came, and a ride ended by power is judged by
/// `ride.min_distance` as any ride's end is. No threads, no files, no clocks.
@Suite("A ride across power cuts, judged as a whole")
struct RideRecoveryTests: StateMachineSuite {
    typealias World = RideRulesTests.World

    /// The way of ``travelFixes(_:)``.
    static func travel(_ metres: Double) -> RideTravel {
        var travel = RideTravel()
        travel.pass(travelFixes(metres))
        return travel
    }

    /// Measurement 4, a ride capturing on track 1 whose committed data ends at t0 + 90 s.
    static func interrupted(travel: RideTravel, continued: Bool = false) -> Machine.Interrupted {
        Machine.Interrupted(
            id: 4, startTime: t0, lifecycle: Lifecycle(restoring: .capturing(track: 1), modality: .bicycle),
            committedEnd: t0 + 90_000, correction: nil, travel: travel, continued: continued)
    }

    /// Continued at t0 + 100 s, then standing for longer than `ride.end_after_still`, `further`
    /// metres north of where the committed fixes end (the way the bike came while the box was off
    /// or its receiver dark), after `dark` seconds without a fix.
    static func continuedThenStill(_ open: Machine.Interrupted, further: Double = 0, dark: Int = 0) throws -> (World, Action) {
        var machine = RideRulesTests.armed()
        _ = try machine.recover(open, at: t0 + 100_000)
        // The receiver stands where the committed fixes end, or that much further.
        let north = (open.travel.last.map { ($0.latitude - 51) * 111_320 } ?? 0) + further
        var world = World(machine: machine, second: 100, north: north)
        for _ in 0..<dark {
            world.second += 1
            world.actions += world.machine.flushDue(at: t0 + Int64(world.second) * 1000)
        }
        world.run(15, speed: 0)
        return (world, try #require(world.actions.first { $0.endsRide }))
    }

    @Test func aTravelSumsTheWayAlongItsFixes() {
        let travel = Self.travel(80)
        #expect(abs(travel.metres - 80) < 0.1, "\(travel.metres)")
        #expect(travel.last?.timestamp == Self.t0 + 16_000)
        var none = RideTravel()
        none.pass(Fix(timestamp: Self.t0, latitude: .nan, longitude: 13))
        none.pass(Fix(timestamp: Self.t0 + 1000, latitude: 51, longitude: 13))
        #expect(none.metres == 0)
    }

    @Test func aRideContinuedAfterACutAndThenStandingKeepsWhatItMovedBeforeTheCut() throws {
        let before = Self.travel(80)
        var machine = RideRulesTests.armed()
        _ = try machine.recover(Self.interrupted(travel: before), at: Self.t0 + 100_000)
        // Status tells the ride's whole way, not the way since the boot.
        #expect(machine.status(at: Self.t0 + 100_000).ride?.distance == before.metres)
        let (world, end) = try Self.continuedThenStill(Self.interrupted(travel: before))
        #expect(end.discards == false)
        let ended = world.actions.compactMap { action -> Double? in
            if case .journal(.ride(.ended(.motion, let distance, false)), _) = action { distance } else { nil }
        }
        #expect(ended.count == 1 && ended[0] >= before.metres, "\(ended)")
    }

    @Test func aRideContinuedAfterACutThatMovedLittleInAllIsDiscarded() throws {
        let (_, end) = try Self.continuedThenStill(Self.interrupted(travel: Self.travel(10)))
        #expect(end.discards == true)
        // A part of a ride continued at its size limit never is.
        let (_, part) = try Self.continuedThenStill(Self.interrupted(travel: Self.travel(10), continued: true))
        #expect(part.discards == false)
    }

    /// Seed 2011 of the simulated life: the bike went on 308 m while the box was off (or its
    /// receiver dark) and then stood. The first fix after the boot is movement from the last
    /// committed one: it is stored, and the ride's end judges the way its stored fixes came, not
    /// a way to fixes dropped as its still tail.
    @Test func aRideContinuedFarFromItsLastCommittedFixStoresTheFixThatGotThere() throws {
        let before = Self.travel(10)
        let (world, end) = try Self.continuedThenStill(Self.interrupted(travel: before), further: 308, dark: 3)
        #expect(end.discards == false)
        var stored = before
        stored.pass(world.staged.flatMap(\.fixes))
        #expect(stored.metres > 300, "the stored fixes came \(stored.metres) m")
        let ended = world.actions.compactMap { action -> Double? in
            if case .journal(.ride(.ended(.motion, let distance, _)), _) = action { distance } else { nil }
        }
        #expect(ended.count == 1 && abs(ended[0] - stored.metres) < 1, "judged \(ended), stored \(stored.metres) m")
    }

    /// Whether ending `open` by power discards it, with `settings`.
    static func discardsEndedByPower(_ open: Machine.Interrupted, _ settings: RideSettings = RideRulesTests.settings) throws -> Bool {
        var machine = Machine(sources: [.init(name: "gpsd", clock: .gnss)], flushInterval: 1000, ride: settings)
        let actions = try machine.endInterrupted(open, at: Self.t0 + 600_000)
        guard case .endInterrupted(let stop, 4, _, _, let discard)? = actions.first else {
            Issue.record("expected measurement 4 to be ended, got \(actions)")
            return false
        }
        #expect(stop.events.map(\.type) == [.lifecycleStop])
        return discard
    }

    @Test func aRideEndedByPowerIsJudgedByTheMinimumDistance() throws {
        // A push of 10 m, the box then off for longer than ride.resume_within: discarded.
        #expect(try Self.discardsEndedByPower(Self.interrupted(travel: Self.travel(10))))
        #expect(try !Self.discardsEndedByPower(Self.interrupted(travel: Self.travel(80))))
        #expect(try !Self.discardsEndedByPower(Self.interrupted(travel: Self.travel(10), continued: true)))
        // With detection off a measurement is the user's: never discarded.
        #expect(try !Self.discardsEndedByPower(Self.interrupted(travel: Self.travel(10)), RideSettings(detect: .off, minDistance: 50)))
    }

    @Test func theFixesTheLogHoldsAddToTheStoredWayAndABeginBySizeIsAContinuation() throws {
        let stored = Self.travel(40)
        let last = try #require(stored.last)
        var engine = Recording(lifecycle: Lifecycle(restoring: .capturing(track: 1), modality: .bicycle))
        for second in 1...4 {
            let north = Double(40 + second * 5)
            _ = engine.ingest(.fix(Fix(timestamp: last.timestamp + Int64(second) * 1000, latitude: 51 + north / 111_320, longitude: 13)))
        }
        let records = [try RecoveryStateTests.record(7, of: 4, engine.takeFlush())]
        let found = try #require(Machine.Interrupted.after(records, stored: (Self.interrupted(travel: stored), sources: "gpsd")))
        #expect(abs(found.0.travel.metres - (stored.metres + 20)) < 0.1, "\(found.0.travel.metres)")
        #expect(!found.0.continued)
        // A ride begun in the log at its predecessor's size limit: its own way, a continuation.
        var next = Recording()
        let begun = [
            try RecoveryStateTests.record(8, of: 5, try next.apply(.start(.bicycle), at: Self.t0 + 200_000),
                steps: [.begin(sources: "gpsd", journal: "recorder.jsonl"), .countRide(.begunBySize)]),
        ]
        let continued = try #require(Machine.Interrupted.after(records + begun, stored: (Self.interrupted(travel: stored), sources: "gpsd")))
        #expect(continued.0.id == 5 && continued.0.continued && continued.0.travel == RideTravel())
    }

    /// A store whose measurement 1, a bicycle ride, is open with fixes `metres` north, as a dead
    /// recorder left it; with `bySize`, its journal says it began at its predecessor's size limit.
    static func deadRide(_ metres: Double, bySize: Bool = false) throws -> (Store, Scratch) {
        let scratch = try Scratch.make("ride-recovery")
        let store = try Store(directory: scratch.path)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: t0), sources: "gpsd")
        for fix in travelFixes(metres) { _ = engine.ingest(.fix(fix)) }
        try store.commit(engine.takeFlush(), to: id)
        if bySize {
            let folder = Store.attachmentDirectory(of: id, in: scratch.path)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let line = #"{"by":"size","event":"ride_begun","samples_from":\#(t0),"t":\#(t0)}"# + "\n"
            try line.write(toFile: folder + "/recorder.jsonl", atomically: true, encoding: .utf8)
        }
        return (store, scratch)
    }

    /// `metres` north of 51° N 13° E: one fix every 5 m, a second apart, from t0 on.
    static func travelFixes(_ metres: Double) -> [Fix] {
        stride(from: 0.0, through: metres, by: 5).enumerated().map { second, north in
            Fix(timestamp: t0 + Int64(second) * 1000, latitude: 51 + north / 111_320, longitude: 13, speed: 5)
        }
    }

    @Test func theStoreTellsAnInterruptedRidesWayAndTheBackgroundStartJudgesItByTheMinimum() throws {
        let auto = RideSettings(detect: .auto, minDistance: 50)
        let (short, shortScratch) = try Self.deadRide(10)
        let found = try #require(try Recovery.interrupted(store: short, directory: shortScratch.path))
        #expect(abs(found.0.travel.metres - 10) < 0.1 && !found.0.continued)
        // `capture start --continue-interrupted` in the background, after ride.resume_within.
        let ended = try Recovery.endByInterruption(store: short, directory: shortScratch.path, ride: auto, at: Self.t0 + 600_000)
        #expect(ended.discarded && ended.id == 1)
        #expect(try short.measurements().isEmpty)
        let counts = try short.rideCounts()
        #expect(counts[.endedByPower] == 1 && counts[.discardedAsStill] == 1)
        // A ride of 80 m is finished and kept; so is a short part continuing a ride at its size limit.
        for (metres, bySize) in [(80.0, false), (10.0, true)] {
            let (store, scratch) = try Self.deadRide(metres, bySize: bySize)
            #expect(try Recovery.interrupted(store: store, directory: scratch.path)?.0.continued == bySize)
            let kept = try Recovery.endByInterruption(store: store, directory: scratch.path, ride: auto, at: Self.t0 + 600_000)
            #expect(!kept.discarded)
            #expect(try store.measurements().map(\.id) == [1])
            #expect(try store.openMeasurement() == nil)
            #expect(try store.rideCounts()[.discardedAsStill] == 0)
        }
    }
}
