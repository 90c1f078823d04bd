package import CaptureCore
import Glibc

/// Reads the rider's button (`button.device`) until stopped: its key events through
/// ``ButtonDecoder``, each press handed over as soon as it is decided. A device that cannot be
/// opened, or goes (unplugged, `ENODEV`), is said once and opened again each second until it comes
/// back; the recording never depends on it. A FIFO named as the device (the tests' fake, or a
/// script's) is read the same way, opened for writing too so that a writer closing it is no end.
package struct ButtonReader: Sendable {
    package let settings: ButtonSettings
    /// The device's path.
    package let device: String

    /// Nil when `settings` names no device.
    package init?(_ settings: ButtonSettings) {
        guard let device = settings.device else { return nil }
        self.settings = settings
        self.device = device
    }

    /// How long to wait before opening again a device that could not be opened or read, ms.
    package static let reopenAfter: Int64 = 1000

    /// Reads until `stop` is given. `pressed` is called on the reading thread with each press;
    /// `note` with a line when the device cannot be read and when it can again.
    package func run(stop: StopSignal, pressed: (ButtonPress) -> Void, note: (String) -> Void) {
        var decoder = ButtonDecoder(key: settings.key, longPress: settings.longPress)
        // Said once each: the device missing, and one that opens but gives nothing before it fails.
        var absent = false
        var failing = false
        while !stop.isStopped {
            let fd = open()
            guard fd >= 0 else {
                if !absent { note("cannot open the button \(device): \(String(cString: strerror(errno)))") }
                absent = true
                if case .stopped = (try? stop.wait(for: -1, timeout: Self.reopenAfter)) ?? .timedOut { return }
                continue
            }
            if absent { note("the button \(device) is back") }
            absent = false
            defer { close(fd) }
            guard let readAny = read(fd, into: &decoder, stop: stop, pressed: pressed) else { return }
            if readAny || !failing { note("the button \(device) went: \(String(cString: strerror(errno)))") }
            failing = !readAny
            // Not at once: a device that opens but cannot be read would otherwise be tried in a loop.
            if case .stopped = (try? stop.wait(for: -1, timeout: Self.reopenAfter)) ?? .timedOut { return }
        }
    }

    private func open() -> Int32 {
        var info = stat()
        let fifo = stat(device, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
        return Glibc.open(device, (fifo ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC)
    }

    /// Reads `fd` until it fails (returns whether anything was read before: open it again) or
    /// `stop` is given (nil).
    private func read(_ fd: Int32, into decoder: inout ButtonDecoder, stop: StopSignal, pressed: (ButtonPress) -> Void) -> Bool? {
        var pending: [UInt8] = []
        var readAny = false
        var buffer = [UInt8](repeating: 0, count: InputEvent.size * 32)
        while true {
            let timeout = decoder.deadline.map { $0 - WallClock.now() }
            let readiness: StopSignal.Readiness
            do {
                readiness = try stop.wait(for: fd, timeout: timeout)
            } catch {
                return readAny
            }
            switch readiness {
            case .stopped: return nil
            case .timedOut:
                decoder.expire(at: WallClock.now()).forEach(pressed)
            case .ready:
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EAGAIN || errno == EINTR { continue }
                guard count > 0 else {
                    if count == 0 { errno = ENODEV }
                    return readAny
                }
                readAny = true
                pending += buffer[0..<count]
                let whole = pending.count - pending.count % InputEvent.size
                for offset in stride(from: 0, to: whole, by: InputEvent.size) {
                    decoder.take(InputEvent(bytes: pending[offset..<offset + InputEvent.size])).forEach(pressed)
                }
                pending.removeFirst(whole)
            }
        }
    }
}
