package import CaptureCore
import Glibc
import SystemPackage

/// Writes what live sources delivered, and the lifecycle marks, to a native trace file
/// (`capture start --record-trace FILE`), so a ride recorded on a device replays in CI.
///
/// Lines are buffered in memory and written at ``flush()``, which the recorder calls with each of
/// its commits. Not thread-safe, and not `Sendable`: the recorder's driver thread alone uses it.
package final class TraceTap {
    /// The trace file.
    package let path: String
    private let fd: Int32
    private var pending: [UInt8] = []
    /// The first write error, if any; writing stops after it.
    package private(set) var failure: DeviceError?

    /// Creates (or truncates) the file and writes the header.
    package init(path: String) throws(DeviceError) {
        self.path = path
        // 0600 whatever the umask: a trace says where a person rode (as every file capture writes).
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DeviceError(path: path, action: "create the trace", errno: errno) }
        _ = fchmod(fd, 0o600)
        pending.append(contentsOf: TraceWriter.header.utf8)
    }

    deinit {
        flush()
        close(fd)
    }

    /// Adds one record to the buffer.
    package func append(_ record: TraceRecord) {
        guard failure == nil else { return }
        pending.append(contentsOf: TraceWriter.line(record).utf8)
    }

    /// Writes the buffered lines.
    package func flush() {
        guard failure == nil, !pending.isEmpty else { return }
        do {
            try FileDescriptor(rawValue: fd).writeAll(pending)
        } catch {
            failure = DeviceError(path: path, action: "write the trace", errno: (error as? Errno)?.rawValue ?? EIO)
        }
        pending.removeAll(keepingCapacity: true)
    }
}
