import CaptureStorage
import Foundation
import Glibc
import Testing

/// Runs the built `capture` binary in a temporary data directory.
///
/// Every recorder a test starts is killed by pid when the `CLI` value goes away, so that no test
/// leaves a process behind, whatever it asserted.
final class CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `capture` executable next to the test bundle.
    static let executable: String = {
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return bundle.appendingPathComponent("capture").path
    }()

    /// The repository root (for fixtures).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    let dataDirectory: String
    private var started: [pid_t] = []

    /// - Parameter depth: extra path components, to make the directory path long.
    init(depth: Int = 0) {
        var url = FileManager.default.temporaryDirectory.appendingPathComponent("capture-e2e-\(UUID().uuidString)")
        for level in 0..<depth { url.appendPathComponent("a-rather-long-directory-name-\(level)") }
        dataDirectory = url.path
    }

    deinit {
        for pid in started + [recorderPID].compactMap({ $0 }) { kill(pid, SIGKILL) }
        let top = dataDirectory.split(separator: "/").firstIndex { $0.hasPrefix("capture-e2e-") }
        let root = dataDirectory.split(separator: "/").prefix(through: top ?? 0).joined(separator: "/")
        try? FileManager.default.removeItem(atPath: "/" + root)
    }

    /// Runs `capture ARGS --data-dir DIR` and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: String? = nil) throws -> Result {
        let process = try Subprocess(arguments + ["--data-dir", dataDirectory], input: input)
        let status = process.wait()
        if let pid = recorderPID, !started.contains(pid) { started.append(pid) }
        return Result(status: status, stdout: process.stdout, stderr: process.stderr)
    }

    /// Runs and decodes the JSON output.
    func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    /// The pid of the running recorder, from its pid file.
    var recorderPID: pid_t? {
        (try? String(contentsOfFile: dataDirectory + "/recorder.pid", encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    func waitFor(_ seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return false
    }

    /// Waits until the recorder has committed at least `count` accelerometer samples.
    func waitForCommitted(_ count: Int) throws -> Bool {
        try waitFor {
            let status = try json(["status"])
            return ((status["committed"] as? [String: Any])?["accelerometer"] as? Int ?? 0) >= count
        }
    }

    /// Everything in the database, as text, to prove that a refused command changed nothing.
    func databaseDump() throws -> String {
        guard FileManager.default.fileExists(atPath: dataDirectory + "/capture.sqlite") else { return "" }
        let store = try Store(directory: dataDirectory)
        var text = ""
        for record in try store.measurements() {
            text += "\(record)\n\(try store.events(of: record.id))\n\(try store.tracks(of: record.id))\n"
            text += "\(try store.counts(of: record.id))\n"
        }
        return text
    }

    func fixture(_ name: String) -> String { Self.root + "/fixtures/" + name }
}

/// A child process started with posix_spawn, its output going to temporary files.
///
/// Foundation's `Process` is avoided on purpose: with tests running in parallel its
/// `waitUntilExit` was seen to miss a child's exit and hang. Here the test reaps its own child
/// by pid.
final class Subprocess {
    let pid: pid_t
    private let files: [String]
    private var exitStatus: Int32?

    convenience init(_ arguments: [String], input: String? = nil, executable: String = CLI.executable) throws {
        try self.init(arguments, bytes: Array((input ?? "").utf8), executable: executable)
    }

    init(_ arguments: [String], bytes input: [UInt8], executable: String) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("capture-io-\(UUID().uuidString)").path
        files = [base + ".in", base + ".out", base + ".err"]
        try Data(input).write(to: URL(fileURLWithPath: files[0]))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, files[0], O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, files[1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, files[2], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
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
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = code
        return code
    }

    var stdout: String { (try? String(contentsOfFile: files[1], encoding: .utf8)) ?? "" }
    /// Standard output as bytes (binary output is not valid UTF-8).
    var stdoutBytes: [UInt8] { FileManager.default.contents(atPath: files[1]).map { [UInt8]($0) } ?? [] }
    var stderr: String { (try? String(contentsOfFile: files[2], encoding: .utf8)) ?? "" }
}
