import Foundation
import Glibc

/// Starts the recorder as a background process that outlives the shell, and waits until it has
/// begun capturing (or failed).
///
/// The child is `capture _record …` in its own session (setsid), stdin from /dev/null, stdout
/// and stderr appended to `recorder.log` in the data directory. It reports on fd 3: one line,
/// `ok <measurement id>` or `error <exit code> <message>`, then closes it.
enum Daemon {
    struct Started {
        var pid: pid_t
        var measurement: Int64
    }

    static let readyDescriptor: Int32 = 3

    static func spawn(arguments: [String], directory: String) throws -> Started {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CLIError(.unavailable, "cannot create a pipe") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let log = directory + "/recorder.log"
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, readyDescriptor)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc ≥ 2.26): a new session, so closing the shell sends no SIGHUP.
        posix_spawnattr_setflags(&attributes, Int16(0x80))
        let executable = "/proc/self/exe"
        let argv = (["capture"] + arguments + ["--ready-fd", "\(readyDescriptor)"]).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(writeEnd)
        guard result == 0 else {
            close(readEnd)
            throw CLIError(.unavailable, "cannot start the recorder: \(String(cString: strerror(result)))")
        }
        var line = Data()
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            line.append(contentsOf: buffer[0..<count])
        }
        close(readEnd)
        let reply = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if reply.hasPrefix("ok "), let id = Int64(reply.dropFirst(3)) {
            return Started(pid: pid, measurement: id)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if reply.hasPrefix("error ") {
            let parts = reply.dropFirst(6).split(separator: " ", maxSplits: 1)
            if parts.count == 2, let code = Int32(parts[0]), let exit = ExitStatus(rawValue: code) {
                throw CLIError(exit, String(parts[1]))
            }
        }
        throw CLIError(.unavailable, "the recorder exited before capturing began; see \(log)")
    }

    /// Reports readiness to the parent (no-op when not started by `spawn`).
    static func report(_ line: String, to descriptor: Int32?) {
        guard let descriptor else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}
