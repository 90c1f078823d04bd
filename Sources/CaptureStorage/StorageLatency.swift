import Glibc
import SystemPackage

/// How fast a medium makes a small write durable: the figures of timed rounds, each a write
/// and an `fdatasync`. `capture doctor --storage` times rounds of its own as PX4's `sd_bench`
/// does (``measure(directory:seconds:)``: 4 KiB written, then `fdatasync`, again and again for a
/// few seconds); a running recorder times its own flushes, each one record of the flush log
/// (``FlushLatencies``), for `capture status --json` and the fleet's heartbeat.
///
/// A flush of live capture is one such round, and a staged commit four more (SQLite's journal
/// twice, the database, the journal's truncation): a medium whose slow rounds take a good part
/// of the flush interval makes the recorder fall behind, which is what the doctor warns about.
/// Its rounds write into a temporary file in the data directory (`.doctor-storage.XXXXXX`, 1 MiB
/// at most, written over from its start), which is removed afterwards.
public struct StorageLatency: Codable, Sendable, Equatable {
    /// The rounds measured.
    public var rounds: Int
    /// Median, 99th percentile and slowest round, milliseconds.
    public var p50Milliseconds: Double
    public var p99Milliseconds: Double
    public var maxMilliseconds: Double

    /// Syncs one flush can need: its flush-log record and a staged commit (see above).
    public static let syncsPerFlush = 5
    /// Bytes a round writes.
    public static let blockSize = 4096
    /// Where rounds wrap around in the temporary file.
    static let fileLimit = 1 << 20

    /// The figures of `latencies` (seconds; at least one).
    public init(latencies: [Double]) {
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
    public static func measure(directory: String, seconds: Double) throws(StorageLatencyError) -> StorageLatency {
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
    public func threatens(flushInterval interval: Double) -> Bool {
        Double(Self.syncsPerFlush) * p99Milliseconds / 1000 > interval / 2
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Why the medium could not be measured: the data directory and the system's error number.
public struct StorageLatencyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var directory: String
    public var errno: Int32

    public var description: String { "cannot measure \(directory): \(String(cString: strerror(errno)))" }
}


/// The last flushes' times to durability, kept by a recorder: a ring of ``capacity`` figures.
public struct FlushLatencies: Sendable, Equatable {
    /// How many flushes are kept (about a minute at the default flush interval).
    public static let capacity = 64
    private var seconds: [Double] = []
    private var next = 0

    public init() {}

    /// Notes one flush that took `seconds` to be durable.
    public mutating func note(_ seconds: Double) {
        if self.seconds.count < Self.capacity {
            self.seconds.append(seconds)
        } else {
            self.seconds[next] = seconds
        }
        next = (next + 1) % Self.capacity
    }

    /// Their figures; nil before the first flush.
    public var figures: StorageLatency? { seconds.isEmpty ? nil : StorageLatency(latencies: seconds) }
}
