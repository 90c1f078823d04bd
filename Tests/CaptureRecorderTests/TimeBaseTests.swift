import CaptureCore
import Testing

@testable import CaptureRecorder

/// The recorder's time base as a value (`RecorderStateMachine.TimeBase`): when the measurement
/// moves onto GNSS time, by how much, and what a later recorder goes on with.
struct TimeBaseTests {
    typealias TimeBase = RecorderStateMachine.TimeBase
    static let t0: Int64 = 1_700_000_000_000

    /// Feeds `count` fixes a second apart whose GNSS time is `offset` ms ahead of the host clock;
    /// the changes they made.
    static func feed(_ base: inout TimeBase, _ count: Int, offset: Int64, from: Int = 0) -> [TimeBase.Change] {
        (from..<from + count).compactMap { second in
            let host = t0 + Int64(second) * 1000
            return base.observe(gnss: host + offset, host: host)
        }
    }

    @Test func anUnsynchronisedHostClockFoundOffMovesOnceThenIsRefined() {
        var base = TimeBase(policy: .auto, hostSynchronized: false)
        #expect(base.offset == 0 && base.report == nil)
        let first = Self.feed(&base, GNSSClock.minimumFixes, offset: 60_000)
        #expect(first == [.moved(60_000)], "once enough fixes agree, and only then")
        #expect(base.offset == 60_000 && base.report?.correctionMs == 60_000)
        // The host clock steps by 10 s (say NTP came): a refinement, nothing stored moves again.
        let refined = Self.feed(&base, GNSSClock.minimumFixes, offset: 50_000, from: 100)
        #expect(refined == [.refined(50_000)] && base.offset == 50_000)
    }

    @Test func thePolicyDecidesWhetherAnOffClockIsCorrected() {
        for (policy, synchronized, moves) in [
            (GNSSTimePolicy.auto, true, false), (.auto, false, true), (.always, true, true), (.never, false, false),
        ] {
            var base = TimeBase(policy: policy, hostSynchronized: synchronized)
            let changes = Self.feed(&base, 10, offset: 60_000)
            #expect(changes.isEmpty != moves, "\(policy), synchronised: \(synchronized)")
            #expect(base.report?.fixes == 10, "the offset is shown whatever the policy")
            #expect(base.correction == (moves ? 60_000 : nil))
        }
    }

    /// A fix that lies before its track's start by more than the threshold, before the clock is
    /// judged: its own offset is taken at once (everything stored moves by it); the clock's
    /// judgement refines it, and nothing moves again.
    @Test func aFixBeforeTheTrackOnAClockNotJudgedYetPutsTheMeasurementOnItsTime() {
        let offset: Int64 = -225_782_000
        var base = TimeBase(policy: .auto, hostSynchronized: false)
        #expect(Self.feed(&base, 2, offset: offset).isEmpty)
        #expect(base.early(gnss: Self.t0 + 2000 + offset, arrived: Self.t0 + 2000, start: Self.t0 + 1000) == .moves(offset))
        #expect(base.offset == offset)
        #expect(Self.feed(&base, 5, offset: offset + 200, from: 3) == [.refined(offset + 200)])
        #expect(base.offset == offset + 200)
        // A track that starts after the fix arrived (one continued by a later recorder) starts at it.
        var continued = TimeBase(policy: .auto, hostSynchronized: false)
        #expect(continued.early(gnss: Self.t0 + offset, arrived: Self.t0, start: Self.t0 + 5000) == .moves(offset - 5000))
    }

    /// Stale bytes ahead of a receiver on time: the measurement moved onto the stale fix's time
    /// before the clock was judged; the judgement finds the host clock right, and what comes is
    /// on it again (nothing stored moves: the start stays at or before the stale fix).
    @Test func aClockJudgedRightAfterAStaleFixTakesNoMoreCorrection() {
        var base = TimeBase(policy: .auto, hostSynchronized: false)
        #expect(base.early(gnss: Self.t0 - 60_000, arrived: Self.t0, start: Self.t0 - 1000) == .moves(-60_000))
        #expect(Self.feed(&base, 5, offset: 0) == [.refined(0)])
        #expect(base.offset == 0)
    }

    /// Once the clock is judged right, a fix that far before its track is stale; a policy that
    /// keeps host-clock times keeps the fix's own time, moving nothing.
    @Test func aClockJudgedRightCallsAFixBeforeTheTrackStale() {
        var right = TimeBase(policy: .auto, hostSynchronized: false)
        _ = Self.feed(&right, GNSSClock.minimumFixes, offset: 300)
        #expect(right.early(gnss: Self.t0 - 60_000, arrived: Self.t0 + 6000, start: Self.t0) == .stale)
        #expect(right.correction == nil)
        var never = TimeBase(policy: .never, hostSynchronized: false)
        #expect(never.early(gnss: Self.t0 - 60_000, arrived: Self.t0, start: Self.t0) == .kept)
        var synchronised = TimeBase(policy: .auto, hostSynchronized: true)
        _ = Self.feed(&synchronised, GNSSClock.minimumFixes, offset: -86_400_000)
        #expect(synchronised.early(gnss: Self.t0 - 86_400_000, arrived: Self.t0 + 6000, start: Self.t0) == .kept)
        #expect(never.correction == nil && synchronised.correction == nil)
    }

    @Test func aLaterRecorderGoesOnWithTheCorrectionApplied() {
        var base = TimeBase(policy: .auto, hostSynchronized: false)
        base.continuing(60_000)
        #expect(base.offset == 60_000 && base.report?.correctionMs == 60_000 && base.report?.fixes == 0)
        // Its receiver agrees: nothing changes; a clock still as wrong needs no second move.
        #expect(Self.feed(&base, 10, offset: 60_000).isEmpty)
    }
}
