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

    @Test func aLaterRecorderGoesOnWithTheCorrectionApplied() {
        var base = TimeBase(policy: .auto, hostSynchronized: false)
        base.continuing(60_000)
        #expect(base.offset == 60_000 && base.report?.correctionMs == 60_000 && base.report?.fixes == 0)
        // Its receiver agrees: nothing changes; a clock still as wrong needs no second move.
        #expect(Self.feed(&base, 10, offset: 60_000).isEmpty)
    }
}
