package import CaptureConfig
import CaptureWiring
import Foundation
import Glibc
import SystemPackage

/// How fast the data directory's medium makes a small write durable (`capture doctor --storage`),
/// measured as PX4's `sd_bench` does: 4 KiB written, then `fdatasync`, again and again for a few
/// seconds, each round timed. A flush of live capture is one such round (a record in the flush
/// log), and a staged commit four more (SQLite's journal twice, the database, the journal's
/// truncation): a medium whose slow rounds take a good part of the flush interval makes the
/// recorder fall behind, which is what the check warns about.
///
/// The rounds write into a temporary file in the data directory (`.doctor-storage.XXXXXX`,
/// 1 MiB at most, written over from its start), which is removed afterwards.
package struct StorageLatency: Encodable, Sendable, Equatable {
    /// The rounds measured.
    package var rounds: Int
    /// Median, 99th percentile and slowest round, milliseconds.
    package var p50Milliseconds: Double
    package var p99Milliseconds: Double
    package var maxMilliseconds: Double

    /// Syncs one flush can need: its flush-log record and a staged commit (see above).
    package static let syncsPerFlush = 5
    /// Bytes a round writes.
    package static let blockSize = 4096
    /// Where rounds wrap around in the temporary file.
    static let fileLimit = 1 << 20

    /// The figures of `latencies` (seconds; at least one).
    init(latencies: [Double]) {
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] * 1000
        }
        rounds = sorted.count
        p50Milliseconds = percentile(0.5)
        p99Milliseconds = percentile(0.99)
        maxMilliseconds = (sorted.last ?? 0) * 1000
    }

    /// Measures the medium of `directory` for `seconds` (at least one round).
    ///
    /// - Throws: ``StorageLatencyError`` when the temporary file cannot be made, written or synced.
    package static func measure(directory: String, seconds: Double) throws(StorageLatencyError) -> StorageLatency {
        var template = Array("\(directory)/.doctor-storage.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw StorageLatencyError(directory: directory, errno: errno) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer {
            close(fd)
            unlink(path)
        }
        let block = [UInt8](repeating: 0xA5, count: blockSize)
        var latencies: [Double] = []
        var offset = 0
        let deadline = now() + seconds
        repeat {
            let began = now()
            do {
                try FileDescriptor(rawValue: fd).writeAll(toAbsoluteOffset: Int64(offset), block)
            } catch {
                throw StorageLatencyError(directory: directory, errno: (error as? Errno)?.rawValue ?? EIO)
            }
            while fdatasync(fd) != 0 {
                guard errno == EINTR else { throw StorageLatencyError(directory: directory, errno: errno) }
            }
            latencies.append(now() - began)
            offset = (offset + blockSize) % fileLimit
        } while now() < deadline
        return StorageLatency(latencies: latencies)
    }

    /// Whether the slow rounds threaten a flush interval of `interval` seconds: the syncs of one
    /// flush (``syncsPerFlush``) at the 99th percentile take more than half of it.
    package func threatens(flushInterval interval: Double) -> Bool {
        Double(Self.syncsPerFlush) * p99Milliseconds / 1000 > interval / 2
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Why the medium could not be measured: the data directory and the system's error number.
package struct StorageLatencyError: Error, Sendable, Equatable, CustomStringConvertible {
    package var directory: String
    package var errno: Int32

    package var description: String { "cannot measure \(directory): \(String(cString: strerror(errno)))" }
}

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
