import Foundation
import Glibc
import Testing

/// Runs any program with posix_spawn (never Foundation's `Process`), stdin from bytes, output to
/// temporary files.
enum Program {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Standard output as bytes (binary output is not valid UTF-8).
        var stdoutBytes: [UInt8]
    }

    /// The full path of `name` on PATH, if any.
    static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> Result {
        let process = try Subprocess(arguments, bytes: input, executable: executable)
        let status = process.wait()
        let bytes = process.stdoutBytes
        return Result(
            status: status, stdout: String(decoding: bytes, as: UTF8.self), stderr: process.stderr, stdoutBytes: bytes)
    }

    /// The tool, or a recorded failure telling how to install it (tests never skip silently).
    static func require(_ name: String, package: String) -> String? {
        if let path = which(name) { return path }
        Issue.record("\(name) not found on PATH: run scripts/setup (installs \(package))")
        return nil
    }
}
