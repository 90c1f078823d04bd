import Foundation
import Glibc
package import Testing

/// Runs any program to its end with ``Subprocess`` (never Foundation's `Process`): standard input
/// from bytes, output collected.
package enum Program {
    /// What a finished program left.
    package struct Result: Sendable {
        /// The exit status (128 + signal if it was killed).
        package var status: Int32
        /// Standard output as text.
        package var stdout: String
        /// Standard error as text.
        package var stderr: String
        /// Standard output as bytes (binary output is not valid UTF-8).
        package var stdoutBytes: [UInt8]
    }

    /// `XDG_RUNTIME_DIR=…` when the tests run with it, for a child started with `env -i`: the
    /// recorder keeps its socket, pid file and lock in a runtime directory chosen by it
    /// (docs/architecture.md, "Where files live"), so a recorder and the commands and tests that
    /// reach it must agree on it.
    package static var runtimeDirectoryVariable: [String] {
        ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].map { ["XDG_RUNTIME_DIR=\($0)"] } ?? []
    }

    /// The full path of `name` on PATH, if any.
    package static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    /// Runs `executable` with `arguments` and `input` on its standard input, and waits for it.
    package static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> Result {
        let process = try Subprocess(arguments, bytes: input, executable: executable)
        let status = process.wait()
        let bytes = process.stdoutBytes
        return Result(
            status: status, stdout: String(decoding: bytes, as: UTF8.self), stderr: process.stderr, stdoutBytes: bytes)
    }

    /// The tool, or a recorded failure telling how to install it (tests never skip silently).
    package static func require(_ name: String, package: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> String?
    {
        if let path = which(name) { return path }
        Issue.record("\(name) not found on PATH: run scripts/setup (installs \(package))", sourceLocation: sourceLocation)
        return nil
    }
}
