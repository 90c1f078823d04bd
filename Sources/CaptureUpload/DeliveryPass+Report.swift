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
