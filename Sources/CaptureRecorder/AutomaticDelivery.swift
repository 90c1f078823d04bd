import CaptureStorage
import Foundation
import Glibc

/// With `upload.auto`: a `capture sync` of its own, started in the background when a measurement
/// has finished, so that the ride is delivered without anyone typing a command. It runs in its
/// own session (closing the shell does not end it), reads nothing, and writes its lines to
/// `<data dir>/sync.log`; nothing of the caller's stays open in it (``DetachedProcess``).
package enum AutomaticDelivery {
    /// What starting it did.
    package enum Outcome: Sendable, Equatable {
        /// `capture sync` runs as this process, writing to `log`.
        case started(pid: Int32, log: String)
        /// Not started: why (the log cannot be opened, or the process not spawned).
        case failed(String)
    }

    /// Starts `capture sync --data-dir directory` (or another `command`: the heartbeat's
    /// `metrics --push`) from `executable` (this program by default).
    package static func start(
        directory: String, command: [String] = ["sync"], executable: String = DetachedProcess.currentExecutable
    ) -> Outcome {
        let log = directory + "/sync.log"
        let logFD = PrivateFiles.open(log, O_WRONLY | O_APPEND)
        guard logFD >= 0 else { return .failed("cannot open \(log)") }
        defer { close(logFD) }
        switch DetachedProcess.spawn(executable, ["capture"] + command + ["--data-dir", directory], log: logFD) {
        case .success(let pid): return .started(pid: pid, log: log)
        case .failure(let error): return .failed(String(cString: strerror(error.code.rawValue)))
        }
    }
}
