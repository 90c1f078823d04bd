package import CaptureConfig
import CaptureStorage
import CaptureWiring
import Foundation

extension Doctor {
    /// `capture doctor --storage`: the data directory's medium measured for ``seconds`` (at
    /// least one round) against the flush interval of `device`.
    package func storage(_ device: DeviceConfiguration) -> DoctorReport {
        let directory = device.dataDirectory.value
        let interval = device.flushInterval.value.seconds
        let latency: StorageLatency
        do {
            latency = try StorageLatency.measure(directory: directory, seconds: seconds)
        } catch {
            return DoctorReport(
                checks: [.fail("storage", "\(error)", "create the data directory and make it writable (the first capture start does)")])
        }
        let figures = String(
            format: "%d rounds of 4 KiB + fdatasync: p50 %.1f ms, p99 %.1f ms, max %.1f ms", latency.rounds, latency.p50Milliseconds,
            latency.p99Milliseconds, latency.maxMilliseconds)
        let check: DoctorCheck =
            latency.threatens(flushInterval: interval)
            ? .warn(
                "storage", "\(figures): \(StorageLatency.syncsPerFlush) syncs at p99 take over half the flush interval (\(device.flushInterval.value))",
                "use a faster card (A1/A2 class), or a longer capture.flush_interval")
            : .pass("storage", "\(figures) in \(directory); flush interval \(device.flushInterval.value)")
        var report = DoctorReport(checks: [check])
        report.storage = latency
        return report
    }
}
