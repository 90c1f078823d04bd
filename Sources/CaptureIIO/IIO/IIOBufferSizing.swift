package import CaptureCore

/// How much an IIO device's kernel buffer holds and how full it gets before the reader is woken:
/// `bufferY/length` and `bufferY/watermark`, both in scans.
///
/// The kernel reports a buffer readable (`POLLIN`) only once `watermark` scans are queued
/// (Documentation/ABI/testing/sysfs-bus-iio, `bufferY/watermark`, kernel 4.2 and later). The
/// watermark is chosen from the sampling rate so that the reader is woken at most
/// `1 / maxLatency` times a second and a scan waits at most `maxLatency` in the kernel before it
/// is read: at 1 kHz and 0.5 s, 500 scans, two wake-ups a second. The length leaves room for
/// ``headroom`` batches, so a reader held up (a commit, a busy core) loses nothing for
/// `(headroom − 1) × maxLatency`.
///
/// ```swift
/// let sizing = IIOBufferSizing(rate: 1000, maxLatency: 0.5)
/// // sizing.watermark == 500, sizing.length == 2000, sizing.batchPeriod == 0.5
/// ```
package struct IIOBufferSizing: Sendable, Equatable {
    /// Scans queued before the kernel wakes the reader (at least 1).
    package var watermark: Int
    /// Capacity of the kernel buffer in scans (at least ``minimumLength`` and `headroom × watermark`).
    package var length: Int
    /// Seconds between reads when the kernel has no `watermark` and the reader batches by
    /// sleeping instead (kernels before 4.2): the same latency bound.
    package var batchPeriod: Double

    /// Rate assumed when neither `--rate` nor `sampling_frequency` says, Hz.
    package static let assumedRate = 100.0
    /// Batches the buffer holds (length / watermark).
    package static let headroom = 4
    /// The smallest length written (the kernel's kfifo default is similar).
    package static let minimumLength = 128
    /// The largest watermark: beyond it (above 16 kHz at 0.5 s) the reader is woken more often
    /// rather than the kernel allocating more than `headroom × 8192` scans.
    package static let maximumWatermark = 8192
    /// The latency bound is kept within 1 ms and 10 s.
    package static let latencyRange = 0.001...10.0

    /// The sizing for a device sampling at `rate` Hz (`nil`, not finite or not above 0: assumed
    /// 100 Hz) whose scans may wait at most `maxLatency` seconds in the kernel.
    package init(rate: Double?, maxLatency: Double) {
        var hertz = rate ?? Self.assumedRate
        if !hertz.isFinite || hertz <= 0 { hertz = Self.assumedRate }
        hertz = min(hertz, 100_000)
        let latency = maxLatency.isFinite
            ? min(max(maxLatency, Self.latencyRange.lowerBound), Self.latencyRange.upperBound)
            : 0.5
        // The first scan of a batch waits (watermark − 1) / rate ≤ latency; rounding down keeps it so.
        let batch = Int((hertz * latency).rounded(.down))
        watermark = min(max(1, batch), Self.maximumWatermark)
        length = max(Self.minimumLength, Self.headroom * watermark)
        batchPeriod = latency
    }

    /// Wake-ups per second at `rate` Hz with this watermark (`rate / watermark`).
    package func wakeUps(atRate rate: Double) -> Double { rate / Double(watermark) }
}
