import CaptureTestSupport
import Foundation
import Glibc
import Testing

@testable import CaptureRecorder

/// The control socket answers only the user the recorder runs as (peer credentials). Tests run
/// as root; the other user is `nobody` (uid 65534), reached with util-linux's `setpriv`.
@Suite struct ControlSocketPeerTests {
    /// What the test server saw, shared with its thread.
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var refusals: [String] = []
        var answered = 0
    }

    static let setpriv = "/usr/bin/setpriv"
    static let python = "/usr/bin/python3"
    static let canSwitchUser =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
        && FileManager.default.isExecutableFile(atPath: python)

    /// Connects to the socket at argv[1], sends a status request and prints what came back
    /// (`b''` when the connection was closed unanswered).
    static let client = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(sys.argv[1])
        except OSError as e:
            print("cannot connect:", e.strerror); sys.exit(0)
        try:
            s.sendall(b'{"command":"status"}\\n'); s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        data = b''
        try:
            while True:
                chunk = s.recv(100)
                if not chunk: break
                data += chunk
        except OSError:
            pass
        print(repr(data))
        """

    @Test func theListeningSocketIs0600() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-sock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let listener = try ControlSocket.listen(at: directory + "/control.sock")
        defer { close(listener) }
        var info = stat()
        #expect(stat(directory + "/control.sock", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test(.enabled(if: canSwitchUser, "needs root, /usr/bin/setpriv and /usr/bin/python3 to connect as another user"))
    func anotherUserIsClosedUnansweredAndLoggedWhileTheOwnerIsAnswered() throws {
        // A directory the other user may pass through, and a socket loosened on purpose, so that
        // the peer check is the only thing between that user and the recorder.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-peer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(chmod(directory, 0o711) == 0)
        let path = directory + "/control.sock"
        let listener = try ControlSocket.listen(at: path)
        defer { close(listener) }
        #expect(chmod(path, 0o666) == 0)

        let seen = Seen()
        let finished = DispatchSemaphore(value: 0)
        // Serves two connections (or gives up after 20 s without one), the way the recorder does.
        let server = Thread {
            defer { finished.signal() }
            var served = 0
            while served < 2 {
                var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 20_000) > 0 else { return }
                served += 1
                guard let client = ControlSocket.accept(listener, refused: { line in seen.lock.withLock { seen.refusals.append(line) } })
                else { continue }
                try? ControlSocket.writeAll(client, Data("hello\n".utf8))
                close(client)
                seen.lock.withLock { seen.answered += 1 }
            }
        }
        server.start()

        let stranger = try Subprocess(
            ["--reuid=65534", "--regid=65534", "--clear-groups", Self.python, "-c", Self.client, path], input: nil,
            executable: Self.setpriv)
        #expect(stranger.wait() == 0, "\(stranger.stderr)")
        #expect(stranger.stdout == "b''\n", "the other user got: \(stranger.stdout)")

        let owner = try Subprocess(["-c", Self.client, path], input: nil, executable: Self.python)
        #expect(owner.wait() == 0, "\(owner.stderr)")
        #expect(owner.stdout == "b'hello\\n'\n", "the owner got: \(owner.stdout)")

        finished.wait()
        #expect(seen.lock.withLock { seen.answered } == 1)
        let lines = seen.lock.withLock { seen.refusals }
        #expect(lines.count == 1 && lines.first?.contains("refused a control connection from uid 65534") == true, "\(lines)")
        #expect(lines.first?.contains("only uid 0 may control this recorder") == true, "\(lines)")
    }
}
