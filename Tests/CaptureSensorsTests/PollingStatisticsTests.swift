import CaptureSensors
import Testing

/// What a polled IIO source reports of its timer (issue 42): rate, jitter, lateness, skips.
@Suite struct PollingStatisticsTests {
    @Test func rateJitterAndLatenessOverAWindow() {
        var statistics = PollingStatistics(askedRate: 50)
        #expect(statistics.text == nil)
        statistics.read(at: 0)
        #expect(statistics.achievedRate == nil)
        statistics.read(at: 20_000_000)
        statistics.read(at: 40_500_000)
        // Intervals of 20 and 20.5 ms: 49.4 Hz, a standard deviation of 0.25 ms, 0.5 ms late at worst.
        #expect(abs((statistics.achievedRate ?? 0) - 2000 / 40.5) < 1e-9)
        #expect(abs((statistics.jitter ?? 0) - 0.25) < 1e-9)
        #expect(abs(statistics.worstLateness - 0.5) < 1e-9)
        #expect(statistics.text == "polled at 49.4 Hz (asked 50), jitter 0.25 ms, worst 0.5 ms late")
        statistics.skip(3)
        #expect(statistics.text?.hasSuffix(", 3 ticks skipped (reads slower than the period)") == true)
        // A new window starts from the last read: one interval of 19 ms, early, so none late.
        statistics.reset()
        statistics.read(at: 59_500_000)
        #expect(statistics.skipped == 0 && statistics.worstLateness == 0)
        #expect(statistics.text == "polled at 52.6 Hz (asked 50), jitter 0 ms, worst 0 ms late")
    }

    /// The report says what polling set the device to, and that values repeat when it converts
    /// slower than it is read; a new window keeps it.
    @Test func theDevicesRateIsInTheReport() {
        var fast = PollingStatistics(askedRate: 50, deviceRate: 100)
        fast.read(at: 0)
        fast.read(at: 20_000_000)
        #expect(fast.text == "polled at 50 Hz (asked 50, sampling_frequency 100 Hz), jitter 0 ms, worst 0 ms late")
        fast.reset()
        fast.read(at: 40_000_000)
        #expect(fast.text == "polled at 50 Hz (asked 50, sampling_frequency 100 Hz), jitter 0 ms, worst 0 ms late")
        var slow = PollingStatistics(askedRate: 50, deviceRate: 12.5)
        slow.read(at: 0)
        slow.read(at: 20_000_000)
        #expect(slow.text == "polled at 50 Hz (asked 50, sampling_frequency 12.5 Hz: values repeat), jitter 0 ms, worst 0 ms late")
    }
}
