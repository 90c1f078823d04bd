import Glibc
import SystemPackage

/// A GNSS receiver's device or file, opened non-blocking, a tty put in raw mode (at the baud
/// rate it has; raw mode also keeps binary UBX intact): what ``NMEASource`` reads and
/// ``UBloxSetup`` talks to. The one copy of the wait-then-read loop both use.
struct ReceiverDevice {
    /// What ``next(into:stop:timeout:)`` found.
    enum Input: Equatable {
        /// This many bytes were read into the buffer.
        case bytes(Int)
        /// Nothing yet (the timeout passed, or the read would block).
        case nothing
        /// The stop signal was given.
        case stopped
        /// The end of a file, or a FIFO whose writer closed.
        case end
    }

    let path: String
    let fd: Int32
    /// Why raw mode could not be set, for a tty that refused it (`/dev/gnss0` may not be a tty
    /// at all, which is fine).
    private(set) var rawModeFailure: String?
    /// A plain file: read to its end without waiting.
    let isRegularFile: Bool

    /// Opens `path` for reading (and writing, if `writable`).
    init(path: String, writable: Bool) throws(DeviceError) {
        self.path = path
        fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: path, action: "open", errno: errno) }
        if isatty(fd) == 1 {
            var settings = termios()
            if tcgetattr(fd, &settings) == 0 {
                cfmakeraw(&settings)
                settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
                if tcsetattr(fd, TCSANOW, &settings) != 0 { rawModeFailure = String(cString: strerror(errno)) }
            }
        }
        var info = stat()
        isRegularFile = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    func close() { _ = Glibc.close(fd) }

    /// Waits (not for a plain file) until the device has input, `stop` is given or `timeout` ms
    /// pass (`nil`: no timeout), then reads what there is into `buffer`.
    ///
    /// - Throws: ``DeviceError`` when poll or read fails (`action` `poll` or `read`).
    func next(into buffer: inout [UInt8], stop: StopSignal, timeout: Int64?) throws(DeviceError) -> Input {
        if !isRegularFile {
            let readiness: StopSignal.Readiness
            do {
                readiness = try stop.wait(for: fd, timeout: timeout)
            } catch {
                throw DeviceError(path: path, action: "poll", errno: error.rawValue)
            }
            if readiness == .stopped { return .stopped }
            if readiness == .timedOut { return .nothing }
        }
        do {
            let count = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            // Ttys in raw non-blocking mode report "nothing yet" as EAGAIN, never as 0.
            return count == 0 ? .end : .bytes(count)
        } catch let error as Errno where error == .resourceTemporarilyUnavailable {
            return .nothing
        } catch {
            throw DeviceError(path: path, action: "read", reason: "\(error) (the receiver vanished?)")
        }
    }
}
