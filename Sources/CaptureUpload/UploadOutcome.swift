import CaptureCore
import Foundation
public import CaptureStorage

/// How one measurement fared in an ``UploadRun``. The raw values are the `result` strings of
/// `capture upload --json`.
public enum UploadOutcome: String, Sendable, Codable, CaseIterable {
    /// The collector has it: 201, 200 to a status query, 409 (it already had it), or it was
    /// uploaded by an earlier run.
    case uploaded
    /// The collector does not want it (412, or fewer than two locations); not retried unless asked.
    case skipped
    /// A hard failure or the retry budget ran out; kept locally and retried by a later run.
    case failed
    /// The collector rejected the token (401); the run stops and the session is kept.
    case unauthorized
    /// The measurement is still open (capturing or paused).
    case notFinished
    /// There is no measurement with this id.
    case notFound

    /// Whether a run that ends with this outcome for a measurement has not done its job for
    /// it: it failed or does not exist (an open measurement is simply not due yet).
    public var isMissed: Bool { self == .failed || self == .notFound }
}

/// One measurement's result: its outcome, why, and how long the transfer took.
///
/// Encodes as `{"measurement": 7, "result": "uploaded", "reason": …, "bytes": …, "seconds": …}`,
/// with `"part": {"original": 7, "number": 1, "count": 3}` for a part of a measurement cut for
/// the payload limit, leaving out absent fields (the `--json` output of `capture upload`).
public struct UploadResult: Sendable, Equatable, Codable {
    /// The measurement.
    public var measurement: Int64
    /// How it fared.
    public var outcome: UploadOutcome
    /// Why, for anything but a plain upload: the collector's reason, "already uploaded", …
    public var reason: String?
    /// The transfer file's size, when a transfer was attempted.
    public var bytes: Int64?
    /// The transfer's wall time in seconds, when a transfer was attempted.
    public var seconds: Double?
    /// For one of the measurement's attachments (§2.8): its id, and its file name.
    public var attachment: Int64?
    public var name: String?
    /// For a part of a measurement cut for the payload limit: which part of which measurement.
    public var part: MeasurementPart?

    /// Creates a result.
    public init(
        measurement: Int64, outcome: UploadOutcome, reason: String? = nil, bytes: Int64? = nil, seconds: Double? = nil,
        attachment: Int64? = nil, name: String? = nil
    ) {
        self.attachment = attachment
        self.name = name
        self.measurement = measurement
        self.outcome = outcome
        self.reason = reason
        self.bytes = bytes
        self.seconds = seconds
    }

    enum CodingKeys: String, CodingKey {
        case measurement
        case outcome = "result"
        case reason, bytes, seconds, attachment, name, part
    }
}

/// What an ``UploadRun`` did: one result per measurement tried, in order.
public struct UploadReport: Sendable, Equatable {
    /// The results, in the order the measurements were tried. After a rejected token the run
    /// stops, so later measurements have no result.
    public var results: [UploadResult]
    /// Where the credentials came from (``UploadAuthenticator/origin``), for messages.
    public var credentialsOrigin: String
    /// What helps when they are refused (``UploadAuthenticator/remedy``).
    public var credentialsRemedy: CredentialsRemedy

    /// Creates a report.
    public init(results: [UploadResult], credentialsOrigin: String, credentialsRemedy: CredentialsRemedy? = nil) {
        self.results = results
        self.credentialsOrigin = credentialsOrigin
        self.credentialsRemedy = credentialsRemedy ?? .renewToken(file: credentialsOrigin)
    }

    /// Whether the collector rejected the token, which stopped the run.
    public var tokenRejected: Bool { results.contains { $0.outcome == .unauthorized } }

    /// The measurements that failed or were not found.
    public var missed: [UploadResult] { results.filter(\.outcome.isMissed) }

    /// Throws unless the run did its job: every measurement chosen is uploaded, skipped or not
    /// yet finished.
    ///
    /// - Throws: ``UploadRunFailure/tokenRejected(origin:remedy:)`` first, else
    ///   ``UploadRunFailure/incomplete(missed:of:)``.
    public func check() throws(UploadRunFailure) {
        if tokenRejected { throw .tokenRejected(origin: credentialsOrigin, remedy: credentialsRemedy) }
        let measurements = results.filter { $0.attachment == nil }
        let missedMeasurements = measurements.filter(\.outcome.isMissed).count
        if missedMeasurements > 0 { throw .incomplete(missed: missedMeasurements, of: measurements.count) }
        let attachments = results.filter { $0.attachment != nil }
        let missedAttachments = attachments.filter(\.outcome.isMissed).count
        if missedAttachments > 0 { throw .attachmentsIncomplete(missed: missedAttachments, of: attachments.count) }
    }
}

/// Why an upload run did not do its job (see ``UploadReport/check()``).
public enum UploadRunFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The collector answered 401 to the token from `origin` (or the issuer refused to renew
    /// it); the run stopped there. `remedy` says what helps.
    case tokenRejected(origin: String, remedy: CredentialsRemedy)
    /// `missed` of the `of` measurements tried failed or do not exist; the others were uploaded.
    case incomplete(missed: Int, of: Int)
    /// Every measurement is there, but `missed` of the `of` attachments tried failed.
    case attachmentsIncomplete(missed: Int, of: Int)

    /// One line naming the fault.
    public var description: String {
        switch self {
        case .tokenRejected(let origin, _): "the credentials from \(origin) were refused"
        case .incomplete(let missed, let total): "\(missed) of \(total) measurement(s) not uploaded"
        case .attachmentsIncomplete(let missed, let total): "\(missed) of \(total) attachment(s) not uploaded"
        }
    }
}
