public import CaptureCore
import Foundation

/// The values ``UploadStateMachine`` exchanges with its driver: what to do, how it ended, what
/// the collector answered, and how failures are retried.
extension UploadStateMachine {
    /// What the driver must do next.
    public enum Action: Sendable, Equatable {
        /// POST the pre-request (opens a new session; anything stored about an old one is void).
        case preRequest
        /// PUT the bytes `range` of the file to `session`, with `Content-Range: bytes a-b/N`.
        case put(session: String, range: ClosedRange<Int64>)
        /// Send the empty status PUT (`Content-Range: bytes */N`) to `session`.
        case queryStatus(session: String)
        /// Wait `milliseconds`, then call ``backOffElapsed(elapsed:)``.
        case backOff(milliseconds: Int64)
        /// The collector refused the token (401) and the credentials can be renewed: renew
        /// them, then call ``tokenRenewed()``.
        case renewToken
        /// The upload is over.
        case done(Outcome)
    }

    /// How an upload ended.
    public enum Outcome: Sendable, Equatable {
        /// The collector answered 201 (or 200 to a status query): it has the whole file.
        case uploaded
        /// The collector already had this (deviceId, measurementId): 409. A success.
        case alreadyStored
        /// The collector does not want the measurement (412, or too few locations): do not retry.
        case skipped(reason: String)
        /// A hard failure (4xx other than those above, or the retry budget is spent); kept locally.
        case failed(reason: String)
        /// 401: the token is missing, wrong or expired. The caller should stop uploading.
        case unauthorized(reason: String)

        /// Whether the collector now holds the measurement.
        public var isSuccess: Bool { self == .uploaded || self == .alreadyStored }
    }

    /// A collector's answer, reduced to what the protocol reads from it.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code.
        public var status: Int
        /// The `Location` header (pre-request only).
        public var location: String?
        /// The `Range` header (308 only), such as `bytes=0-41`.
        public var range: String?
        /// The start of the body, as a reason for failures.
        public var reason: String
        /// `Retry-After` (429, 503, 403), in milliseconds from now: the back-off is at least this
        /// long (within the budget).
        public var retryAfter: Int64?

        /// Creates a response.
        public init(status: Int, location: String? = nil, range: String? = nil, reason: String = "", retryAfter: Int64? = nil) {
            self.status = status
            self.location = location
            self.range = range
            self.reason = reason
            self.retryAfter = retryAfter
        }
    }

    /// Retry timing: exponential back-off with jitter, capped, within a total budget.
    public struct RetryPolicy: Sendable, Equatable {
        /// The delay before the first retry, in ms. Each further consecutive failure doubles it.
        public var initialDelay: Int64
        /// No single delay is longer than this, in ms.
        public var maximumDelay: Int64
        /// No retry is scheduled that would end later than this many ms after the upload
        /// began; the upload fails instead.
        public var budget: Int64
        /// A 404 right after a fresh pre-request, this many times in a row, is a failure rather
        /// than a reason to open yet another session.
        public var maximumRestarts: Int
        /// The budget, in ms, while the collector has not answered once (a refused connection,
        /// a name that does not resolve, a misspelt URL): a collector never reached is reported
        /// within a minute, not after the whole ``budget``; one that answered and then failed
        /// gets the whole budget. Never more than ``budget``.
        public var unansweredBudget: Int64

        /// 250 ms doubling to 30 s, for up to 15 minutes: long enough to ride out a collector
        /// restart, short enough that a dead collector is reported within a coffee break.
        public static let standard = RetryPolicy(initialDelay: 250, maximumDelay: 30_000, budget: 15 * 60_000)

        /// One minute: enough for a collector that is restarting to come up, short enough that a
        /// wrong URL is noticed while the user still waits.
        public static let standardUnansweredBudget: Int64 = 60_000

        /// Creates a policy; all times in milliseconds.
        public init(
            initialDelay: Int64, maximumDelay: Int64, budget: Int64, maximumRestarts: Int = 5,
            unansweredBudget: Int64 = standardUnansweredBudget
        ) {
            self.initialDelay = max(1, initialDelay)
            self.maximumDelay = max(self.initialDelay, maximumDelay)
            self.budget = max(0, budget)
            self.maximumRestarts = max(1, maximumRestarts)
            self.unansweredBudget = min(self.budget, max(0, unansweredBudget))
        }

        /// The delay before retry number `failures` (1-based), given a uniform `random` in [0, 1):
        /// "equal jitter", half fixed and half random, so retries of many clients spread out
        /// but never come back sooner than half the nominal delay.
        public func delay(afterFailures failures: Int, random: Double) -> Int64 {
            var nominal = initialDelay
            var doublings = failures - 1
            while doublings > 0, nominal < maximumDelay {
                nominal = min(maximumDelay, nominal * 2)
                doublings -= 1
            }
            let half = nominal / 2
            let jitter = Int64((Double(nominal - half) * min(max(random, 0), 1)).rounded(.down))
            return min(nominal, half + jitter)
        }
    }
}
