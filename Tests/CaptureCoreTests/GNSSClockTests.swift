import CaptureCore
import Testing

@Suite struct GNSSClockTests {
    /// Fixes once a second whose GNSS time is `offset` ahead of the host clock, received
    /// `delay` ms after their epoch.
    func observe(_ clock: inout GNSSClock, count: Int, offset: Int64, from host: Int64 = 1_000_000, delay: Int64 = 120)
        -> [Bool]
    {
        (0..<count).map { index in
            let hostTime = host + Int64(index) * 1000
            return clock.observe(gnss: hostTime + offset - delay, host: hostTime)
        }
    }

    @Test func aHostClockThatIsRightIsLeftAlone() {
        var clock = GNSSClock()
        let changes = observe(&clock, count: 30, offset: 0, delay: 800)
        #expect(!changes.contains(true))
        #expect(clock.correction == nil)
        #expect(clock.median == -800)
        #expect(clock.spread == 0)
        #expect(clock.fixes == 30)
    }

    @Test(arguments: [-2 * 86_400_000, 2 * 86_400_000, -300_000, 300_000, 3_500, -3_500] as [Int64])
    func anOffHostClockIsCorrectedOnceFiveFixesAgree(offset: Int64) {
        var clock = GNSSClock()
        let changes = observe(&clock, count: 8, offset: offset)
        #expect(changes == [false, false, false, false, true, false, false, false])
        #expect(clock.correction == offset - 120)
    }

    @Test func fixesThatDisagreeAreNotTrusted() {
        var clock = GNSSClock()
        // A day off, but the receiver's times scatter by ±1.6 s: the spread is over the threshold.
        for index in 0..<12 {
            let scatter: Int64 = [0, -1_600, 1_600][index % 3]
            clock.observe(gnss: Int64(index) * 1000 + 86_400_000 + scatter, host: Int64(index) * 1000)
        }
        #expect(clock.correction == nil)
        #expect(clock.spread == 3_200)
        #expect(clock.median == 86_400_000)
    }

    @Test func aStepOfTheHostClockIsFollowedWithinFiveFixes() {
        var clock = GNSSClock()
        _ = observe(&clock, count: 10, offset: 2 * 86_400_000)
        let twoDays: Int64 = 2 * 86_400_000 - 120
        #expect(clock.correction == twoDays)
        // NTP answers: the host clock jumps forward by two days; the receiver's delay stays.
        let changes = observe(&clock, count: 6, offset: 0, from: 1_000_000 + 10_000 + 2 * 86_400_000)
        #expect(changes == [false, false, false, false, true, false])
        #expect(clock.correction == 0)
    }

    @Test func anEarlierRecordersCorrectionGoesOn() {
        var clock = GNSSClock(correction: 86_400_000)
        #expect(clock.correction == 86_400_000)
        let changes = observe(&clock, count: 5, offset: 86_400_000 + 120)
        #expect(changes == [false, false, false, false, false])
        #expect(clock.correction == 86_400_000)
    }
}
