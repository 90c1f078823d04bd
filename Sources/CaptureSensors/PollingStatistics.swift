import Glibc

/// What a polled IIO source achieves: the rate it really reads at and how evenly, over a window
/// of reads. Polling is a timer and sysfs reads (each an I²C or SPI transfer in the driver), so
/// the rate asked for is a wish: a slow bus, a busy CPU or a rate above what the reads take all
/// show here, in `capture status` (the source's note) and in the recorder's journal.
///
/// ```swift
/// var statistics = PollingStatistics(askedRate: 50)
/// statistics.read(at: 0); statistics.read(at: 20_000_000); statistics.read(at: 40_500_000)
/// statistics.achievedRate   // 49.4 (Hz)
/// statistics.text           // "polled at 49.4 Hz (asked 50), jitter 0.25 ms, worst 0.5 ms late"
/// ```
///
/// With the device's own rate (`sampling_frequency` as it read after polling set it), the text
/// says it, and that values repeat when it is below the rate asked:
/// `polled at 49.4 Hz (asked 50, sampling_frequency 12.5 Hz: values repeat), …`.
package struct PollingStatistics: Sendable, Equatable {
    /// The rate the timer aims at, Hz.
    package let askedRate: Double
    /// The device's `sampling_frequency`, Hz, when known.
    package let deviceRate: Double?
    private var last: Int64?
    private var intervals = 0
    private var sum = 0.0
    private var sumOfSquares = 0.0
    private var worst = 0.0
    /// Ticks the timer gave up because a read took longer than its period.
    package private(set) var skipped = 0

    package init(askedRate: Double, deviceRate: Double? = nil) {
        self.askedRate = askedRate
        self.deviceRate = deviceRate
    }

    /// A read began at `nanoseconds` (a monotonic clock).
    package mutating func read(at nanoseconds: Int64) {
        defer { last = nanoseconds }
        guard let last else { return }
        let interval = Double(nanoseconds - last) / 1e6
        intervals += 1
        sum += interval
        sumOfSquares += interval * interval
        worst = max(worst, interval - 1000 / askedRate)
    }

    /// The timer gave up `count` ticks (a read overran its period).
    package mutating func skip(_ count: Int) { skipped += count }

    /// Reads per second over the window; `nil` before two reads.
    package var achievedRate: Double? { intervals > 0 && sum > 0 ? 1000 * Double(intervals) / sum : nil }

    /// The standard deviation of the intervals between reads, ms; `nil` before two reads.
    package var jitter: Double? {
        guard intervals > 0 else { return nil }
        let mean = sum / Double(intervals)
        return max(0, sumOfSquares / Double(intervals) - mean * mean).squareRoot()
    }

    /// The most an interval exceeded the period, ms (0 when none did).
    package var worstLateness: Double { max(0, worst) }

    /// Starts a new window (the last read stays the start of the next interval).
    package mutating func reset() {
        let keep = last
        self = PollingStatistics(askedRate: askedRate, deviceRate: deviceRate)
        last = keep
    }

    /// `polled at 49.9 Hz (asked 50), jitter 0.21 ms, worst 3.4 ms late`, with the device's rate
    /// after the rate asked (`asked 50, sampling_frequency 100 Hz`) when known, and `, N ticks
    /// skipped` when reads overran; `nil` before two reads.
    package var text: String? {
        guard let achievedRate, let jitter else { return nil }
        let skippedText = skipped > 0 ? ", \(skipped) ticks skipped (reads slower than the period)" : ""
        let device = deviceRate.map {
            ", sampling_frequency \(IIOSource.format($0)) Hz" + ($0 < askedRate ? ": values repeat" : "")
        } ?? ""
        return "polled at \(Self.decimal(achievedRate, places: 1)) Hz (asked \(IIOSource.format(askedRate))\(device)), "
            + "jitter \(Self.decimal(jitter, places: 2)) ms, worst \(Self.decimal(worstLateness, places: 1)) ms late"
            + skippedText
    }

    private static func decimal(_ value: Double, places: Int) -> String {
        let scale = places == 1 ? 10.0 : 100.0
        let rounded = (value * scale).rounded() / scale
        return IIOSource.format(rounded)
    }

    /// Now on `CLOCK_MONOTONIC`, ns: what the intervals are measured on (a step of the wall
    /// clock is not jitter).
    package static func monotonicNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
