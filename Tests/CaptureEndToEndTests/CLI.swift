import CaptureRecorder
import CaptureStorage
import CaptureTestSupport
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
    static let executable = BuiltProducts.path("capture")

    let dataDirectory: String
    private var started: [pid_t] = []

    /// - Parameter depth: extra path components, to make the directory path long.
    init(depth: Int = 0) {
        var url = FileManager.default.temporaryDirectory.appendingPathComponent("capture-e2e-\(UUID().uuidString)")
        for level in 0..<depth { url.appendPathComponent("a-rather-long-directory-name-\(level)") }
        dataDirectory = url.path
    }

    /// A data directory at `dataDirectory`, which must lie under a `capture-e2e-…` directory:
    /// that directory is what goes when the value does.
    init(dataDirectory: String) {
        precondition(dataDirectory.split(separator: "/").contains { $0.hasPrefix("capture-e2e-") })
        self.dataDirectory = dataDirectory
    }

    deinit {
        for pid in started + [recorderPID].compactMap({ $0 }) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: runtime.path)
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

    /// Where the recorder's socket, pid file and lock are: the runtime directory `capture`
    /// chooses with this process's environment, which it inherits.
    var runtime: RuntimeDirectory { RuntimeDirectory(dataDirectory: dataDirectory) }

    /// The pid of the running recorder, from its pid file.
    var recorderPID: pid_t? { Self.recorderPID(dataDirectory: dataDirectory) }

    /// The pid in the pid file of the recorder of `dataDirectory`, if any.
    static func recorderPID(dataDirectory: String) -> pid_t? {
        (try? String(contentsOfFile: RuntimeDirectory(dataDirectory: dataDirectory).pidFile, encoding: .utf8))
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

    func fixture(_ name: String) -> String { Repository.fixture(name) }
}

extension Subprocess {
    /// Starts the built `capture` with `arguments`.
    convenience init(_ arguments: [String], input: String? = nil) throws {
        try self.init(arguments, input: input, executable: CLI.executable)
    }
}
