import CaptureCore
import CaptureUpload

extension DeliveryPass.Outcome {
    /// What a pass did, for a person: the lines `capture sync` prints (the command adds what to
    /// type about a backoff or a login that is gone).
    func lines(directory: String) -> [String] {
        switch self {
        case .busy: ["sync: another upload is running in \(directory); nothing to do"]
        case .nothingWaiting: ["sync: nothing waits"]
        case .notYet(let reason, _): ["sync: not yet: \(reason)"]
        case .backingOff(let until, let state, let waiting):
            [
                "sync: \(waiting) waiting; \(state.failures) pass(es) failed (\(state.lastError ?? "?")); "
                    + "next attempt at \(TextFormat.time(until))"
            ]
        case .metered(let waiting):
            ["sync: \(waiting) waiting; not sent: NetworkManager says the connection is metered (upload.unmetered_only)"]
        case .unreachable(let state, let waiting, _):
            ["sync: \(waiting) waiting; \(state.lastError ?? "?"); next attempt at \(state.nextAttemptAt.map(TextFormat.time) ?? "?")"]
        case .loginGone(_, let waiting): ["sync: \(waiting) waiting; \(report.reason ?? "the login is gone")"]
        case .delivered(let report, let state, _, _):
            report.results.map(\.line) + (state.nextAttemptAt.map { ["sync: next attempt at \(TextFormat.time($0))"] } ?? [])
        }
    }
}

extension DeliveryPass.Note {
    /// The line for the log (the log handler adds `capture: warning:` to a warning): at info
    /// level (`-v`), but for ``isWarning``.
    var line: String {
        switch self {
        case .delivering(let reason): "sync: delivering: \(reason)"
        case .meteringUnknown: "whether the connection is metered is unknown (no NetworkManager); sending"
        case .pruned(let count): "sync: pruned \(count) measurement(s) as retention.* allows"
        case .loginRefreshed(let login): "sync: login refreshed; it lasts until \(TextFormat.time(login.expiresAt))"
        case .loginNotRefreshed(let why):
            "the login is due for a refresh that failed (\(why)); the next sync tries again"
        }
    }

    /// Whether the note is a warning (shown by default) rather than information.
    var isWarning: Bool {
        switch self {
        case .meteringUnknown, .loginNotRefreshed: true
        default: false
        }
    }
}
