public import CaptureCore
import Foundation

/// The upload of one transfer file as a pure state machine (§2.4–2.7 of the protocol notes).
///
/// It does no I/O and reads no clock: the driver feeds it what happened (an HTTP status with its
/// `Range`, a network error, the end of a back-off) together with the milliseconds elapsed since
/// the upload began, and performs the ``Action`` it returns. Every row of the client reaction
/// table of §2.7 is one transition here, so the whole policy is tested without a network.
///
/// ```swift
/// var machine = UploadStateMachine(totalLength: 1000)
/// var action = machine.start(session: nil)          // .preRequest
/// action = machine.preRequestAnswered(.init(status: 200, location: url), elapsed: 5)
/// // .put(session: url, range: 0...999)
/// ```
public struct UploadStateMachine: Sendable {
    private enum State: Sendable {
        case idle
        /// The pre-request is in flight.
        case preRequesting
        /// A PUT of `range` to `session` is in flight.
        case putting(session: String, range: ClosedRange<Int64>)
        /// A status query to `session` is in flight.
        case querying(session: String)
        /// Waiting; then `next` (nil session: a pre-request; else a status query).
        case backingOff(session: String?)
        /// Waiting for new credentials after a 401; then a status query to `session`, or a pre-request.
        case renewing(session: String?)
        case finished(Outcome)
    }

    /// The file's size in bytes (`x-upload-content-length`, the `N` of every Content-Range).
    public let totalLength: Int64
    /// The largest PUT body; nil sends the rest of the file in one PUT (as Android does).
    public let chunkSize: Int64?
    /// Retry timing.
    public let policy: RetryPolicy
    /// The origins the bearer token may be sent to; every request carries it, so a session URL
    /// outside them is refused. Nil: any origin (tests of other rules).
    public let scope: TokenScope?
    private var state: State = .idle
    private var random: any RandomNumberGenerator & Sendable
    /// Consecutive failures (network errors, 5xx, 429, stalled 308s) since the last progress.
    private var failures = 0
    /// Consecutive 404s without a byte acknowledged in between.
    private var restarts = 0
    /// Consecutive PUTs answered 308 without the collector's offset moving past their start.
    private var stalls = 0
    /// Whether the credentials can be renewed after a 401 (an OAuth client's can, a fixed token cannot).
    public let renewable: Bool
    /// Whether a 401 led to renewed credentials and no other answer came since: a second 401
    /// in a row ends the upload as unauthorized.
    private var renewedAfter401 = false
    /// Whether a 409 to a status query or PUT already led to a new pre-request.
    private var askedAfterConflict = false
    /// What went wrong last (the reason of the latest back-off, and of the failure when the
    /// budget runs out).
    public private(set) var lastProblem = ""
    /// Whether the collector has answered HTTP (any status) in this run: before, the short
    /// ``RetryPolicy/unansweredBudget`` applies.
    public private(set) var answered: Bool
    /// What is left of ``RetryPolicy/unansweredBudget`` for this upload, in ms (earlier uploads
    /// of the same run to a collector that never answered used the rest).
    private let unansweredBudgetLeft: Int64

    /// The number of bytes the collector has acknowledged so far (from 308 `Range` headers),
    /// for persisting and for progress. Reset to 0 by a new session.
    public private(set) var acknowledged: Int64 = 0

    /// The session URL in use, if any (the `Location` of the last successful pre-request).
    public var session: String? {
        switch state {
        case .putting(let session, _), .querying(let session): session
        case .backingOff(let session), .renewing(let session): session
        case .idle, .preRequesting, .finished: nil
        }
    }

    /// The outcome, once ``Action/done(_:)`` has been returned.
    public var outcome: Outcome? {
        if case .finished(let outcome) = state { return outcome }
        return nil
    }

    /// Creates the machine for a file of `totalLength` bytes.
    ///
    /// - Parameters:
    ///   - chunkSize: the largest PUT body in bytes, nil for the whole rest of the file.
    ///   - scope: the origins the token may go to: a pre-request answered with a session
    ///     `Location` elsewhere ends the upload as failed before anything is sent there, and a
    ///     stored session elsewhere is dropped for a new pre-request. Nil allows any origin.
    ///   - renewable: whether a 401 may be answered by renewing the credentials (once, until
    ///     another answer comes) and going on from the collector's offset.
    ///   - answered: whether the collector answered earlier in this run (then the whole budget
    ///     applies from the start).
    ///   - unansweredSpent: ms of the unanswered budget that earlier uploads of this run spent.
    ///   - random: the jitter source; inject a seeded generator in tests.
    public init(
        totalLength: Int64, chunkSize: Int64? = nil, policy: RetryPolicy = .standard, scope: TokenScope? = nil,
        renewable: Bool = false, answered: Bool = false, unansweredSpent: Int64 = 0,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.answered = answered
        self.unansweredBudgetLeft = max(0, policy.unansweredBudget - max(0, unansweredSpent))
        self.renewable = renewable
        self.totalLength = totalLength
        self.chunkSize = chunkSize.map { max(1, $0) }
        self.policy = policy
        self.scope = scope
        self.random = random
    }

    // MARK: - Inputs

    /// Begins: with a stored `session` (from an earlier, interrupted run) by asking the collector
    /// where it stands; otherwise with a pre-request. A stored session outside the ``scope``
    /// (an origin no longer trusted) is not asked: a pre-request opens a new one.
    public mutating func start(session: String?) -> Action {
        guard case .idle = state else { return illegal("start") }
        guard totalLength > 0 else { return finish(.failed(reason: "the transfer file is empty")) }
        if let session, scope?.allows(session) ?? true {
            state = .querying(session: session)
            return .queryStatus(session: session)
        }
        state = .preRequesting
        return .preRequest
    }

    /// The collector answered (it is reachable); any answer but 401 ends a token renewal's
    /// one retry.
    private mutating func noteAnswer(_ response: Response) {
        answered = true
        if response.status != 401 { renewedAfter401 = false }
    }

    /// The collector answered the pre-request.
    public mutating func preRequestAnswered(_ response: Response, elapsed: Int64) -> Action {
        guard case .preRequesting = state else { return illegal("preRequestAnswered") }
        noteAnswer(response)
        switch response.status {
        case 200, 201:
            guard let location = response.location, !location.isEmpty else {
                return finish(.failed(reason: "the collector opened a session without a usable Location header (an http or https URL)"))
            }
            if let scope, !scope.allows(location) {
                let elsewhere = URLOrigin(location)?.description ?? location
                return finish(
                    .failed(
                        reason: "the collector's session Location is on another origin (\(elsewhere)) than the collector "
                            + "(\(scope.collector)), one not trusted with the token; nothing was sent there"))
            }
            acknowledged = 0
            return put(session: location, from: 0)
        case 404:
            // The pre-request opens a session, so it has none to lose: nothing answers for
            // `measurements` under the collector's URL, whose path is wrong.
            return finish(.failed(reason: Self.noEndpoint))
        default:
            return common(response, elapsed: elapsed, session: nil, what: "pre-request")
        }
    }

    /// Why a pre-request answered 404 fails: the collector's URL names no collector.
    public static let noEndpoint =
        "HTTP 404 to the pre-request: no collector answers for `measurements` under the collector URL "
        + "(a wrong path: a Cyface collector serves under …/api/v4, capture-collector at its root)"

    /// The collector answered a PUT of bytes.
    public mutating func putAnswered(_ response: Response, elapsed: Int64) -> Action {
        guard case .putting(let session, let range) = state else { return illegal("putAnswered") }
        noteAnswer(response)
        switch response.status {
        case 200, 201:
            return uploaded()
        case 308:
            // The answer to a PUT carries the server's own offset; without a Range it is
            // ambiguous (a proxy may have eaten it), so ask rather than start over. A collector
            // that keeps taking PUTs without moving its offset is retried with back-off within
            // the budget, not asked again at once forever.
            let next = Self.nextByte(fromRange: response.range)
            if let next, next > range.lowerBound { stalls = 0 } else { stalls += 1 }
            if stalls > 1 {
                let problem = "upload: HTTP 308 without progress (Range \(response.range.map { "'\($0)'" } ?? "missing"))"
                return retry(session: session, problem: problem, elapsed: elapsed)
            }
            guard let next else { return query(session) }
            if next > range.upperBound { restarts = 0 }
            return resume(session: session, at: next, elapsed: elapsed)
        default:
            return common(response, elapsed: elapsed, session: session, what: "upload")
        }
    }

    /// The collector answered a status query.
    public mutating func statusAnswered(_ response: Response, elapsed: Int64) -> Action {
        guard case .querying(let session) = state else { return illegal("statusAnswered") }
        noteAnswer(response)
        switch response.status {
        case 200, 201:
            return uploaded()
        case 308:
            // No Range: nothing received yet, upload from 0.
            return resume(session: session, at: Self.nextByte(fromRange: response.range) ?? 0, elapsed: elapsed)
        default:
            return common(response, elapsed: elapsed, session: session, what: "status query")
        }
    }

    /// The request in flight failed without an HTTP answer (connection refused or reset,
    /// timeout, TLS failure). The collector may or may not have received bytes: ask it.
    public mutating func transportFailed(_ description: String, elapsed: Int64) -> Action {
        switch state {
        case .preRequesting:
            return retry(session: nil, problem: "pre-request: \(description)", elapsed: elapsed)
        case .putting(let session, _), .querying(let session):
            return retry(session: session, problem: description, elapsed: elapsed)
        default:
            return illegal("transportFailed")
        }
    }

    /// New credentials are there after ``Action/renewToken``: ask the collector where the
    /// upload stands (or, before a session, send the pre-request again).
    public mutating func tokenRenewed() -> Action {
        guard case .renewing(let session) = state else { return illegal("tokenRenewed") }
        if let session { return query(session) }
        state = .preRequesting
        return .preRequest
    }

    /// The back-off returned by the previous action is over.
    public mutating func backOffElapsed(elapsed: Int64) -> Action {
        guard case .backingOff(let session) = state else { return illegal("backOffElapsed") }
        if let session { return query(session) }
        state = .preRequesting
        return .preRequest
    }

    /// Parses a 308 `Range` header into the next byte to send: the number after the first `-`,
    /// plus one, the way Google's `MediaHttpUploader.getNextByteIndex` reads it. So
    /// `bytes=0-41` gives 42 and `bytes=0--1` (an empty temp file) gives 0. Nil when absent
    /// or unreadable.
    public static func nextByte(fromRange header: String?) -> Int64? {
        guard let header else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes="), let dash = text.firstIndex(of: "-") else { return nil }
        let last = text[text.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        guard let end = Int64(last), end < Int64.max else { return nil }
        return max(0, end + 1)
    }

    /// Reads `Retry-After` (RFC 9110 §10.2.3: delay seconds, or an HTTP date) into milliseconds
    /// from `now` (Unix ms); nil when absent or unreadable, 0 for a date in the past. At most a
    /// day, so a hostile header cannot park an upload for ever (the budget decides anyway).
    public static func retryAfter(_ header: String?, now: Int64) -> Int64? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let day: Int64 = 86_400_000
        if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            guard let seconds = Int64(text) else { return day }
            return min(seconds, day / 1000) * 1000
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return min(max(0, Int64((date.timeIntervalSince1970 * 1000).rounded()) - now), day)
    }

    // MARK: - Transitions

    /// The collector has the whole file (200 or 201 to a PUT or a status query).
    private mutating func uploaded() -> Action {
        acknowledged = totalLength
        return finish(.uploaded)
    }

    /// The reactions shared by every request (§2.7's table).
    private mutating func common(_ response: Response, elapsed: Int64, session: String?, what: String) -> Action {
        let reason = response.reason.isEmpty ? "HTTP \(response.status)" : "HTTP \(response.status): \(response.reason)"
        switch response.status {
        case 404:
            // Unknown or expired session: a new pre-request, from byte 0.
            restarts += 1
            acknowledged = 0
            if restarts > policy.maximumRestarts {
                return finish(.failed(reason: "the collector keeps losing the upload session (\(reason))"))
            }
            if restarts == 1 {
                state = .preRequesting
                return .preRequest
            }
            return retry(session: nil, problem: "\(what): \(reason)", elapsed: elapsed)
        case 409 where session == nil:
            // To the pre-request, 409 means the collector stores this measurement already.
            return finish(.alreadyStored)
        case 409:
            // To a status query (or a PUT) the collector also answers 409 for a skip condition
            // (§2.10), so it is not taken for "already stored": a new pre-request says which.
            if askedAfterConflict { return finish(.failed(reason: "\(what): \(reason), again after a new pre-request")) }
            askedAfterConflict = true
            acknowledged = 0
            state = .preRequesting
            return .preRequest
        case 412:
            return finish(.skipped(reason: response.reason.isEmpty ? "the collector refused it (HTTP 412)" : response.reason))
        case 401 where renewable && !renewedAfter401:
            renewedAfter401 = true
            state = .renewing(session: session)
            return .renewToken
        case 401:
            return finish(.unauthorized(reason: reason))
        case 403, 429, 500...599:
            // 403: the Android uploader retries it later (the collector answers it while
            // unavailable); 429 and 503 may say when with Retry-After.
            return retry(session: session, problem: "\(what): \(reason)", elapsed: elapsed, atLeast: response.retryAfter)
        default:
            return finish(.failed(reason: "\(what): \(reason)"))
        }
    }

    private mutating func put(session: String, from offset: Int64) -> Action {
        var end = totalLength - 1
        if let chunkSize { end = min(end, offset + chunkSize - 1) }
        let range = offset...end
        state = .putting(session: session, range: range)
        return .put(session: session, range: range)
    }

    private mutating func query(_ session: String) -> Action {
        state = .querying(session: session)
        return .queryStatus(session: session)
    }

    /// Continues at byte `next` as the collector said.
    private mutating func resume(session: String, at next: Int64, elapsed: Int64) -> Action {
        guard next <= totalLength else {
            return finish(.failed(reason: "the collector claims \(next) bytes of a \(totalLength)-byte file"))
        }
        if next > acknowledged {
            failures = 0
            restarts = 0
            stalls = 0
        }
        acknowledged = next
        if next == totalLength {
            // Every byte is there but the upload is not complete: ask again after a pause
            // rather than sending an empty range.
            return retry(session: session, problem: "the collector has every byte but did not complete", elapsed: elapsed)
        }
        return put(session: session, from: next)
    }

    private mutating func retry(session: String?, problem: String, elapsed: Int64, atLeast: Int64? = nil) -> Action {
        failures += 1
        lastProblem = problem
        var delay = policy.delay(afterFailures: failures, random: Double(random.next() >> 11) / 9_007_199_254_740_992)
        if let atLeast, atLeast > delay {
            // The collector said when: no earlier, and the budget decides whether to wait that long.
            delay = atLeast
            lastProblem += " (Retry-After \((atLeast + 999) / 1000) s)"
        }
        let budget = answered ? policy.budget : unansweredBudgetLeft
        guard elapsed + delay <= budget else {
            let never = answered ? "" : ", the collector never answered"
            return finish(
                .failed(reason: "gave up after \(failures) attempt(s) in \(elapsed / 1000) s\(never): \(lastProblem)"))
        }
        state = .backingOff(session: session)
        return .backOff(milliseconds: delay)
    }

    private mutating func finish(_ outcome: Outcome) -> Action {
        state = .finished(outcome)
        return .done(outcome)
    }

    /// An input that makes no sense now ends the upload as failed rather than trapping:
    /// a driver bug must not crash the CLI, and it is reported.
    private mutating func illegal(_ input: String) -> Action {
        finish(.failed(reason: "internal error: \(input) in state \(state)"))
    }
}
