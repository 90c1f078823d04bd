package import CaptureCore
package import CaptureGNSS
import Foundation
import Glibc
import Synchronization

/// A u-blox module simulated on a pseudo-terminal, for `capture gnss setup` and `capture
/// doctor`: it answers a MON-VER poll with the version it is given, every configuration
/// message (class CFG) with ACK-ACK, or ACK-NAK where `refuses` says so, or nothing where
/// `ignores` does; optionally it writes NMEA `chatter` before each answer, as a module that
/// keeps sending its output does. Every frame it receives is kept in ``received``.
package final class FakeUBloxReceiver: Sendable {
    /// The device the code under test opens.
    package var path: String { terminal.path }

    private let terminal: PseudoTerminal
    private let monVer: [UInt8]?
    private let refuses: @Sendable (UBXFrame) -> Bool
    private let ignores: @Sendable (UBXFrame) -> Bool
    private let chatter: [UInt8]
    private let state = Mutex<[UBXFrame]>([])
    private let stopPipe: (read: Int32, write: Int32)
    private let done = DispatchSemaphore(value: 0)

    /// Starts a module that answers MON-VER with `monVer` (`nil`: a receiver that is no u-blox).
    package init(
        monVer: [UInt8]?, chatter: String = "", refuses: @escaping @Sendable (UBXFrame) -> Bool = { _ in false },
        ignores: @escaping @Sendable (UBXFrame) -> Bool = { _ in false }
    ) throws {
        terminal = try PseudoTerminal()
        var settings = termios()
        tcgetattr(terminal.master, &settings)
        cfmakeraw(&settings)
        tcsetattr(terminal.master, TCSANOW, &settings)
        self.monVer = monVer
        self.chatter = Array(chatter.utf8)
        self.refuses = refuses
        self.ignores = ignores
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
        stopPipe = (fds[0], fds[1])
        Thread { [self] in
            serve()
            done.signal()
        }.start()
    }

    deinit {
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// The frames received so far, in order.
    package var received: [UBXFrame] { state.withLock { $0 } }

    /// Writes `text` as the module's output (NMEA sentences a test makes up).
    package func send(_ text: String) { terminal.write(text) }

    /// Stops answering (and waits until the thread has ended).
    package func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        done.wait()
    }

    /// A UBX frame of class/id `kind`.
    package static func frame(_ kind: UInt16, _ payload: [UInt8]) -> UBXFrame {
        UBXFrame(messageClass: UInt8(kind >> 8), messageID: UInt8(kind & 0xFF), payload: payload)
    }

    private func serve() {
        var splitter = UBXFrameSplitter()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var set = [
                pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&set, 2, -1) >= 0 || errno == EINTR else { return }
            if set[1].revents != 0 { return }
            guard set[0].revents != 0 else { continue }
            let count = read(terminal.master, &buffer, buffer.count)
            guard count > 0 else { return }
            for case .frame(let frame) in splitter.push(buffer[0..<count]) {
                state.withLock { $0.append(frame) }
                answer(frame)
            }
        }
    }

    private func answer(_ frame: UBXFrame) {
        var reply: [UInt8] = chatter
        if frame.kind == 0x0A04, frame.payload.isEmpty, let monVer {
            reply += Self.frame(0x0A04, monVer).bytes
        } else if frame.messageClass == 0x06, !ignores(frame) {
            let ack: UInt16 = refuses(frame) ? 0x0500 : 0x0501
            reply += Self.frame(ack, [frame.messageClass, frame.messageID]).bytes
        }
        if !reply.isEmpty { terminal.write(reply) }
    }
}
