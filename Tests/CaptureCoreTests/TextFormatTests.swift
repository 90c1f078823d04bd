import CaptureCore
import Testing

/// The text forms `capture` prints: times in UTC, durations, distances, byte counts, clocks.
@Suite struct TextFormatTests {
    @Test func timesDurationsAndDistances() {
        #expect(TextFormat.time(1_700_000_000_000) == "2023-11-14 22:13:20Z")
        #expect(TextFormat.duration(3_723_999) == "1:02:03")
        #expect(TextFormat.span(2 * 86_400_000 + 3_723_250) == "2 d 1:02:03.250")
        #expect(TextFormat.span(4_250) == "0:00:04.250")
        #expect(TextFormat.distance(850.4) == "850 m" && TextFormat.distance(12_345) == "12.35 km")
    }

    @Test func aCountOfOneIsSingular() {
        // Issue 46: `capture surface` said "1 windows".
        #expect(TextFormat.count(1, "window") == "1 window" && TextFormat.count(3, "window") == "3 windows")
        #expect(TextFormat.count(0, "cell") == "0 cells" && TextFormat.count(2, "child", "children") == "2 children")
    }

    @Test func byteCountsInPowersOfAThousand() {
        #expect(ByteCount.text(999) == "999 B")
        #expect(ByteCount.text(1_234) == "1.2 kB")
        #expect(ByteCount.text(3_400_000) == "3.4 MB")
        #expect(ByteCount.text(1_250_000_000) == "1.25 GB")
    }

    @Test func aClockReportSaysHowFarOffAndWhatWasDone() {
        let moved = ClockReport(fixes: 12, offsetMs: 172_803_000, spreadMs: 40, correctionMs: 172_803_000, hostSynchronized: false, policy: .auto)
        #expect(
            TextFormat.clock(moved)
                == "host clock 2 d 0:00:03.000 behind GNSS (median of \(min(12, GNSSClock.window)) fixes, spread 40 ms); times moved by 2 d 0:00:03.000 onto GNSS time")
        let none = ClockReport(fixes: 0, offsetMs: nil, spreadMs: nil, correctionMs: nil, hostSynchronized: true, policy: .auto)
        #expect(TextFormat.clock(none) == "host clock: no fix from a live receiver yet; not moved (the host clock is synchronised)")
    }
}
