import Foundation
import Glibc

/// A child process started with posix_spawn, stdin from /dev/null, its output going to files in
/// the campaign's work directory. Never Foundation's `Process`: the campaign reaps its own
/// children by pid, and kills by pid only what it started.
final class Child {
    let pid: pid_t
    let name: String
    private let outputPath: String
    private let errorPath: String
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`; output goes to `<directory>/<name>.out` and `.err`.
    /// `extraEnvironment` (`NAME=value`) is added to this process's environment.
    init(_ executable: String, _ arguments: [String], directory: String, name: String, extraEnvironment: [String] = []) throws {
        self.name = name
        outputPath = directory + "/" + name + ".out"
        errorPath = directory + "/" + name + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            environment.append(entry)
            index += 1
        }
        let added = extraEnvironment.map { strdup($0) }
        defer { added.forEach { free($0) } }
        environment += added + [nil]
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        guard result == 0 else {
            throw CampaignError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Waits for the child; its exit code, or 128 + the signal that ended it.
    @discardableResult
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = Self.code(status)
        exitStatus = code
        return code
    }

    /// The exit status if the child has ended, without waiting.
    func poll() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        exitStatus = Self.code(status)
        return exitStatus
    }

    /// Waits up to `seconds`; then SIGKILLs the child and reports it as timed out (nil).
    func wait(seconds: Double) -> Int32? {
        let deadline = Clock.now() + seconds
        while Clock.now() < deadline {
            if let status = poll() { return status }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        wait()
        return nil
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; always reaps the child.
    func stop(grace: Double = 3) {
        guard poll() == nil else { return }
        kill(pid, SIGTERM)
        _ = wait(seconds: grace)
    }

    private static func code(_ status: Int32) -> Int32 {
        (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    var stdout: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
}

/// The result of a command run to its end.
struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output as JSON, if it is.
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
    var summary: String { "exit \(status): \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))" }
}

/// A failure of the campaign's own machinery (not a finding about the product).
struct CampaignError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Time in seconds: monotonic for durations, the wall clock in Unix milliseconds for comparing
/// with stored timestamps.
enum Clock {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func wallMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        usleep(UInt32(seconds * 1_000_000))
    }
}

/// Whether a process (not necessarily our child) is gone: absent, or a zombie nobody reaped yet
/// with every thread gone too. After a kill -9 the main thread turns zombie while the others may
/// still be exiting, holding the process's descriptors, and so its locks (the flush log's): a
/// checker that went on then found the log taken and read the database without it.
func isGone(_ pid: pid_t) -> Bool {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return true }
    return tasks.allSatisfy { task in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(after: close)...]
        return state.hasPrefix(" Z") || state.hasPrefix(" X")
    }
}
