package import Foundation
import Glibc

/// Starts a `capture` process that outlives its caller: the recorder, and the automatic
/// delivery's `capture sync`.
///
/// It runs in a session of its own (closing the shell sends it no SIGHUP), reads /dev/null, and
/// writes its standard output and error to `log`. Of the caller's descriptors it keeps only
/// `passing` (each moved to the number given); nothing else stays open in it, since a pipe it
/// kept (a wrapper such as faketime, a script reading the caller's output) would make that
/// reader wait for it to end.
package enum DetachedProcess {
    /// Returns the pid, or the `errno` of `posix_spawn`.
    package static func spawn(
        _ executable: String, _ arguments: [String], log: Int32, passing: [(descriptor: Int32, as: Int32)] = []
    ) -> Result<pid_t, POSIXError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        for (descriptor, target) in passing { posix_spawn_file_actions_adddup2(&actions, descriptor, target) }
        let kept = Set(passing.map(\.as))
        for fd in inheritedDescriptors() where fd > 2 && !kept.contains(fd) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc ≥ 2.26).
        posix_spawnattr_setflags(&attributes, Int16(0x80))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)) }
        return .success(pid)
    }

    /// This process's executable, for starting another `capture`.
    package static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// This process's open descriptors that a child would inherit (not close-on-exec).
    private static func inheritedDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap(Int32.init).filter { fd in
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC == 0
        }
    }
}
