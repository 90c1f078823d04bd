import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation
import Glibc

/// The outcome of one campaign: one row of the summary table.
final class Tally {
    let name: String
    var runs = 0
    var checks = 0
    var failures: [String] = []
    /// The worst case seen, as a measured value against what is allowed (text for the table).
    var worst = "–"

    init(_ name: String) { self.name = name }

    /// Counts a check; records and prints a failure.
    @discardableResult
    func check(_ condition: Bool, _ message: @autoclosure () -> String) -> Bool {
        checks += 1
        if !condition {
            let text = message()
            failures.append(text)
            FileHandle.standardError.write(Data("FAIL [\(name)] \(text)\n".utf8))
        }
        return condition
    }

    var passed: Bool { failures.isEmpty && runs > 0 }
}

/// Paths, tools and the seeded random source shared by the campaigns.
final class Context {
    /// The folder of the executables under test.
    let binaries: String
    var capture: String { binaries + "/capture" }
    var collector: String { binaries + "/capture-collector" }
    /// The campaigns' directories are made under it.
    let work: String
    let trace: String
    var random: SplitMix64
    let verbose: Bool
    private var serial = 0
    private let began = Clock.now()

    init(binaries: String, work: String, trace: String, seed: UInt64, verbose: Bool) {
        self.binaries = binaries
        self.work = work
        self.trace = trace
        random = SplitMix64(seed: seed)
        self.verbose = verbose
    }

    /// A fresh directory under the work directory.
    func directory(_ name: String) throws -> String {
        serial += 1
        let path = work + "/\(name)-\(serial)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A name for a child's output files.
    func outputName(_ label: String) -> String {
        serial += 1
        return "\(label)-\(serial)"
    }

    /// Starts `capture ARGS --data-dir DIR` without waiting (`environment`: `NAME=value` added).
    func spawnCapture(_ arguments: [String], dataDirectory: String, environment: [String] = []) throws -> Child {
        log("capture \(arguments.joined(separator: " "))")
        return try Child(
            capture, arguments + ["--data-dir", dataDirectory], directory: work,
            name: outputName(arguments.first ?? "capture"), extraEnvironment: environment)
    }

    /// Runs `capture ARGS --data-dir DIR` to its end (at most `timeout` s, then it is killed).
    func capture(_ arguments: [String], dataDirectory: String, environment: [String] = [], timeout: Double = 120) throws -> Outcome {
        let child = try spawnCapture(arguments, dataDirectory: dataDirectory, environment: environment)
        guard let status = child.wait(seconds: timeout) else {
            throw CampaignError("capture \(arguments.joined(separator: " ")) did not end within \(Int(timeout)) s")
        }
        return Outcome(status: status, stdout: child.stdout, stderr: child.stderr)
    }

    func log(_ text: String) {
        if verbose { FileHandle.standardError.write(Data((String(format: "  %8.2f ", Clock.now() - began) + text + "\n").utf8)) }
    }

    func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &random) }
    func integer(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }

    /// Waits up to `seconds` for `condition`, polling every 20 ms.
    func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Clock.now() + seconds
        repeat {
            if try condition() { return true }
            usleep(20_000)
        } while Clock.now() < deadline
        return try condition()
    }

    /// The pid in the data directory's `recorder.pid` (in its runtime directory), if any.
    func recorderPID(_ dataDirectory: String) -> pid_t? {
        (try? String(contentsOfFile: RuntimeDirectory(dataDirectory: dataDirectory).pidFile, encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

extension SampleCounts {
    /// All samples: motion, pressure and fixes.
    var total: Int { accelerometer + gyroscope + magnetometer + pressure + locations }
}

extension Store {
    /// Opens a store for checking, and lets it go before any other process writes: a checking
    /// connection must not hold the database while `capture` commands run.
    static func inspect<T>(_ directory: String, _ body: (Store) throws -> T) throws -> T {
        let store = try Store(directory: directory, durability: .relaxed)
        return try body(store)
    }
}
