import CaptureStorage
import Foundation
import Glibc
import SystemPackage

/// Starts a recorder as a background process that outlives the shell, and waits until it has
/// begun capturing (or failed).
///
/// The child is `capture _record …` (``executable`` and ``command``, then ``arguments(_:recover:)``)
/// in its own session (setsid), stdin from
/// /dev/null, stdout and stderr appended to `recorder.log` in the data directory. It reports
/// one ``Readiness`` line on fd 3 (``readyDescriptor``), which it is told with `--ready-fd 3`.
package struct RecorderLauncher: Sendable {
    /// The recorder's output in the data directory (what `capture status` points to when it ended
    /// without finishing).
    package static let logFileName = "recorder.log"

    /// A recorder that has begun capturing.
    package struct Started: Sendable, Equatable {
        /// The recorder's process id.
        package var pid: Int32
        /// The measurement it captures.
        package var measurement: Int64
    }

    /// The executable to start: this one by default.
    package var executable: String
    /// The arguments before the configuration's: the hidden recorder command.
    package var command: [String]

    /// The readiness pipe's descriptor in the child.
    package static let readyDescriptor: Int32 = 3

    /// A launcher of `executable` (this process's own by default) with `command` first.
    package init(executable: String = "/proc/self/exe", command: [String] = ["_record"]) {
        self.executable = executable
        self.command = command
    }

    /// Starts a recorder for `configuration` and returns once it is capturing.
    ///
    /// - Parameter recover: continue the open, interrupted measurement instead of starting one.
    /// - Throws: ``LaunchFailure``: the recorder's own (``Readiness/failed(_:)``), or
    ///   ``LaunchFailure/Kind/notStarted`` when it could not be started or ended silently.
    package func start(_ configuration: RecorderConfiguration, recover: Bool = false) throws(LaunchFailure) -> Started {
        let directory = configuration.directory
        do {
            try PrivateFiles.createDirectory(directory)
        } catch {
            throw LaunchFailure(kind: .io, message: "cannot create the data directory \(directory): \(error.localizedDescription)")
        }
        let log = directory + "/" + Self.logFileName
        // Opened here rather than by a spawn action, so that it is created 0600 whatever the umask.
        let logFD = PrivateFiles.open(log, O_WRONLY | O_APPEND)
        guard logFD >= 0 else {
            throw LaunchFailure(kind: .io, message: "cannot open \(log): \(String(cString: strerror(errno)))")
        }
        defer { close(logFD) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw LaunchFailure(kind: .notStarted, message: "cannot create a pipe") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        let arguments = ["capture"] + command + (try Self.arguments(configuration, recover: recover))
        let spawned = DetachedProcess.spawn(
            executable, arguments, log: logFD, passing: [(descriptor: writeEnd, as: Self.readyDescriptor)])
        close(writeEnd)
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(readEnd)
            throw LaunchFailure(
                kind: .notStarted, message: "cannot start the recorder: \(String(cString: strerror(error.code.rawValue)))")
        }
        let line = Self.readAll(readEnd)
        close(readEnd)
        switch Readiness(decoding: line) {
        case .ready(let measurement)?:
            return Started(pid: pid, measurement: measurement)
        case .failed(let failure)?:
            Self.reap(pid)
            throw failure
        case nil:
            Self.reap(pid)
            throw LaunchFailure(kind: .notStarted, message: "the recorder exited before capturing began; see \(log)")
        }
    }

    /// The options of `capture _record` for `configuration`: its data directory (for the
    /// configuration file), the configuration as JSON, `--recover` to continue the open
    /// measurement instead of starting one, and the readiness pipe.
    package static func arguments(_ configuration: RecorderConfiguration, recover: Bool) throws(LaunchFailure) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json: String
        do {
            json = String(decoding: try encoder.encode(configuration), as: UTF8.self)
        } catch {
            throw LaunchFailure(kind: .unexpected, message: "cannot encode the recorder's configuration: \(error)")
        }
        return ["--data-dir", configuration.directory, "--configuration", json] + (recover ? ["--recover"] : [])
            + ["--ready-fd", "\(readyDescriptor)"]
    }

    /// Reads until end of file (the child closes the pipe after its line, or dies).
    private static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 512)
        while let count = try? buffer.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }), count > 0 {
            data.append(contentsOf: buffer[0..<count])
        }
        while data.last == 0x0A { data.removeLast() }
        return data
    }

    private static func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}
