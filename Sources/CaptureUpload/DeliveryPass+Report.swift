import CaptureCore

extension DeliveryPass.Outcome {
    /// A pass's outcome as a record for scripts (`capture sync --json`): the decision, why, how
    /// many measurements wait, the upload results, the next attempt (Unix ms) and the metering.
    public struct Report: Encodable, Sendable {
        public var decision: String
        public var reason: String?
        public var waiting: Int
        public var results: [UploadResult] = []
        public var nextAttemptAt: Int64?
        public var metered: String?
    }

    public var report: Report {
        switch self {
        case .busy(let waiting): Report(decision: "busy", reason: "another upload is running", waiting: waiting)
        case .nothingWaiting: Report(decision: "nothing-waiting", waiting: 0)
        case .notYet(let reason, let waiting): Report(decision: "not-yet", reason: reason, waiting: waiting)
        case .backingOff(let until, let state, let waiting):
            Report(decision: "backing-off", reason: state.lastError, waiting: waiting, nextAttemptAt: until)
        case .metered(let waiting):
            Report(decision: "metered", reason: "the connection is metered", waiting: waiting, metered: Metering.metered.rawValue)
        case .unreachable(let state, let waiting, let metering):
            Report(
                decision: "unreachable", reason: state.lastError, waiting: waiting, nextAttemptAt: state.nextAttemptAt,
                metered: metering?.rawValue)
        case .loginGone(let login, let waiting):
            Report(
                decision: "login-gone", reason: "the login to \(login.issuer) is gone (\(login.goneReason ?? "expired"))",
                waiting: waiting)
        case .delivered(let report, let state, let waiting, let metering):
            Report(
                decision: "delivered", waiting: waiting, results: report.results, nextAttemptAt: state.nextAttemptAt,
                metered: metering?.rawValue)
        }
    }
}

extension DeliveryPass.Outcome {
    /// What a pass did, for a person: the lines `capture sync` prints (the command adds what to
    /// type about a backoff or a login that is gone).
    public func lines(directory: String) -> [String] {
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
    /// The line for the log: at info level (`-v`), but for ``isWarning``.
    public var line: String {
        switch self {
        case .delivering(let reason): "sync: delivering: \(reason)"
        case .meteringUnknown: "capture: warning: whether the connection is metered is unknown (no NetworkManager); sending"
        case .pruned(let count): "sync: pruned \(count) measurement(s) as retention.* allows"
        case .loginRefreshed(let login): "sync: login refreshed; it lasts until \(TextFormat.time(login.expiresAt))"
        case .loginNotRefreshed(let why):
            "capture: warning: the login is due for a refresh that failed (\(why)); the next sync tries again"
        }
    }

    /// Whether the note is a warning (shown by default) rather than information.
    public var isWarning: Bool {
        switch self {
        case .meteringUnknown, .loginNotRefreshed: true
        default: false
        }
    }
}
