package import Glibc
import Foundation

/// A child process started with posix_spawn, its standard input from bytes and its output going
/// to temporary files; the one process runner of the test targets.
///
/// Foundation's `Process` is avoided on purpose: with tests running in parallel its
/// `waitUntilExit` was seen to miss a child's exit and hang. Here the test reaps its own child
/// by pid, and a child still running when the value goes away is killed and reaped.
///
/// ```swift
/// let child = try Subprocess(["--version"], executable: BuiltProducts.path("capture"))
/// #expect(child.wait() == 0)
/// print(child.stdout)
/// ```
package final class Subprocess {
    /// The child's pid.
    package let pid: pid_t
    private let files: [String]
    private var exitStatus: Int32?
    /// Children seen while the process ran (see ``noteChildren()``).
    private var knownChildren: Set<pid_t> = []

    /// Starts `executable` with `arguments`, `input` on its standard input.
    package convenience init(_ arguments: [String], input: String? = nil, executable: String) throws {
        try self.init(arguments, bytes: Array((input ?? "").utf8), executable: executable)
    }

    /// Starts `executable` with `arguments` and `input` as bytes on its standard input.
    ///
    /// - Parameter mergingStandardError: send standard error to the standard output file too, in
    ///   the order written (then ``stderr`` is empty and ``stdout`` holds both).
    package init(_ arguments: [String], bytes input: [UInt8], executable: String, mergingStandardError: Bool = false)
        throws
    {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("capture-io-\(UUID().uuidString)").path
        files = [base + ".in", base + ".out", base + ".err"]
        try Data(input).write(to: URL(fileURLWithPath: files[0]))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, files[0], O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, files[1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergingStandardError {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, files[2], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else {
            files.forEach { unlink($0) }
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
        files.forEach { unlink($0) }
    }

    /// Waits for the child and returns its exit status (128 + signal if it was killed).
    @discardableResult
    package func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return reaped(status)
    }

    private func reaped(_ status: Int32) -> Int32 {
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = code
        return code
    }

    /// Standard output as text.
    package var stdout: String { (try? String(contentsOfFile: files[1], encoding: .utf8)) ?? "" }
    /// Standard output as bytes (binary output is not valid UTF-8).
    package var stdoutBytes: [UInt8] { FileManager.default.contents(atPath: files[1]).map { [UInt8]($0) } ?? [] }
    /// Standard error as text (empty when it was merged into standard output).
    package var stderr: String { (try? String(contentsOfFile: files[2], encoding: .utf8)) ?? "" }
    /// Everything the child wrote, standard output then standard error, for failure messages.
    package var output: String { stdout + stderr }

    /// Stops the child gracefully: SIGTERM, then SIGKILL after `graceSeconds`, and reaps it. Does
    /// nothing once the child was reaped (its pid may be reused by then). With
    /// `includingChildren`, its children still alive afterwards (taken before the signal, or
    /// noted earlier with ``noteChildren()`` and orphaned since) are killed by their pids too:
    /// gpsfake, for one, leaves its gpsd to init if it ends first.
    package func stop(graceSeconds: Double = 3, includingChildren: Bool = false) {
        guard exitStatus == nil else { return }
        let children =
            includingChildren
            ? Set(Self.children(of: pid)).union(knownChildren.filter { Self.parent(of: $0) == pid || Self.parent(of: $0) == 1 })
            : []
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(graceSeconds)
        while exitStatus == nil, Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { _ = reaped(status) } else { usleep(10_000) }
        }
        if exitStatus == nil {
            kill(pid, SIGKILL)
            wait()
        }
        for child in children where Self.isAlive(child) { kill(child, SIGKILL) }
    }

    /// Remembers the child's current children, so that ``stop(graceSeconds:includingChildren:)``
    /// stops them even if the child itself has ended and left them to init by then.
    package func noteChildren() { knownChildren.formUnion(Self.children(of: pid)) }

    /// The pids whose parent is `parent`, from /proc.
    package static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { Self.parent(of: $0) == parent }
    }

    /// The parent of `pid`, from /proc.
    package static func parent(of pid: pid_t) -> pid_t? {
        let fields = statFields(pid)
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// Whether `pid` exists and is not a zombie.
    package static func isAlive(_ pid: pid_t) -> Bool {
        guard let state = statFields(pid).first else { return false }
        return state != "Z"
    }

    /// The fields of /proc/PID/stat after the command name (state, parent pid, …).
    private static func statFields(_ pid: pid_t) -> [Substring] {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return [] }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
