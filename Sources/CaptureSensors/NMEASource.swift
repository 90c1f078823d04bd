public import CaptureCore
import Glibc
import SystemPackage

/// Reads NMEA 0183 straight from a receiver: a tty (`/dev/ttyACM0`, put in raw mode), a pty,
/// `/dev/gnss0` (where termios may not apply; that is fine), a FIFO or a plain file (read to its
/// end; the source then ends).
///
/// Bad, truncated and unknown sentences are skipped and reported as losses; fix acquired and
/// lost are reported as ``SourceNote/gnss(state:)``.
public struct NMEASource: ReportingSampleSource {
    /// The device or file.
    public let path: String

    /// A reader of `path`.
    public init(path: String) {
        self.path = path
    }

    /// `nmea:/dev/ttyACM0`.
    public var name: String { "nmea:\(path)" }

    /// Checks that `path` can be opened for reading now.
    public func check() throws(DeviceError) {
        let fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: path, action: "open", errno: errno) }
        close(fd)
    }

    /// Reads until the file or FIFO ends, the device fails, or `shouldStop()`.
    public func run(
        deliver: @Sendable (Sample) -> Void, note: @Sendable (SourceNote) -> Void, shouldStop: @Sendable () -> Bool
    ) throws {
        let fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: path, action: "open", errno: errno) }
        defer { close(fd) }
        if isatty(fd) == 1 {
            var settings = termios()
            if tcgetattr(fd, &settings) == 0 {
                cfmakeraw(&settings)
                settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
                if tcsetattr(fd, TCSANOW, &settings) != 0 {
                    note(.info("could not put \(path) in raw mode: \(String(cString: strerror(errno)))"))
                }
            }
        }
        var info = stat()
        let isRegularFile = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        var stream = NMEAStream()
        var watch = GNSSFixWatch()
        var rejected = 0
        var unsupported = 0
        note(.gnss(state: watch.state))
        var buffer = [UInt8](repeating: 0, count: 4096)

        func handle(_ events: [GNSSEvent]) {
            let now = WallClock.now()
            for case .fix(let fix) in events { deliver(.fix(fix)) }
            if let state = watch.take(events, now: now) { note(.gnss(state: state)) }
            let total = stream.stats.rejected
            if total > rejected {
                note(.lost(total - rejected, reason: "bad or unknown NMEA sentences"))
                rejected = total
            }
            let unused = stream.stats.unsupported.values.reduce(0, +)
            if unused > unsupported {
                note(.skipped(unused - unsupported))
                unsupported = unused
            }
        }

        while !shouldStop() {
            if let state = watch.tick(now: WallClock.now()) { note(.gnss(state: state)) }
            if !isRegularFile {
                // swift-system has no poll(2): an interrupted poll counts as a timeout here, and the
                // loop checks shouldStop before it polls again.
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, 250)
                if ready < 0 && errno != EINTR { throw DeviceError(path: path, action: "poll", errno: errno) }
                if ready <= 0 { continue }
            }
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            } catch let error as Errno where error == .resourceTemporarilyUnavailable {
                continue
            } catch {
                handle(stream.finish())
                throw DeviceError(path: path, action: "read", reason: "\(error) (the receiver vanished?)")
            }
            if count == 0 {
                // End of a file, or a FIFO whose writer closed: the source has ended. (Ttys in
                // raw non-blocking mode report "nothing yet" as EAGAIN, never as 0.)
                handle(stream.finish())
                return
            }
            handle(stream.push(buffer[0..<count]))
        }
    }
}
