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
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("capture-prog-\(UUID().uuidString)").path
        let files = [base + ".in", base + ".out", base + ".err"]
        defer { files.forEach { unlink($0) } }
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
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let bytes = FileManager.default.contents(atPath: files[1]).map { [UInt8]($0) } ?? []
        return Result(
            status: code, stdout: String(decoding: bytes, as: UTF8.self),
            stderr: (try? String(contentsOfFile: files[2], encoding: .utf8)) ?? "", stdoutBytes: bytes)
    }

    /// The tool, or a recorded failure telling how to install it (tests never skip silently).
    static func require(_ name: String, package: String) -> String? {
        if let path = which(name) { return path }
        Issue.record("\(name) not found on PATH: run scripts/setup (installs \(package))")
        return nil
    }
}
