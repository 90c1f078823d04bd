public import CaptureCore
public import CaptureSensors
public import CaptureStorage
import Foundation

/// A request to the recorder over its control socket: one JSON object on one line,
/// `{"command":"modality","modality":"WALKING"}`.
public struct ControlRequest: Codable, Sendable, Equatable {
    /// What the recorder is asked to do; the raw values are the protocol's words.
    public enum Command: String, Codable, Sendable, Equatable, CaseIterable {
        /// Report ``RecorderStatus``; changes nothing.
        case status
        /// Pause the measurement (committing what came before).
        case pause
        /// Resume a paused measurement on a new track.
        case resume
        /// Stop the measurement for good; the recorder exits after answering.
        case stop
        /// Record a change of modality (``ControlRequest/modality``).
        case modality
    }

    /// What is asked.
    public var command: Command
    /// The new modality for ``Command/modality``.
    public var modality: Modality?

    public init(command: Command, modality: Modality? = nil) {
        self.command = command
        self.modality = modality
    }

    /// `modality` with its new modality.
    public static func modality(_ modality: Modality) -> ControlRequest {
        ControlRequest(command: .modality, modality: modality)
    }
}

/// The recorder's answer: one JSON object on one line.
public struct ControlReply: Codable, Sendable {
    public var ok: Bool
    public var failure: ControlFailure?
    public var status: RecorderStatus?
    /// For `modality`: whether it changed the modality or the modality was in force already
    /// (`nil` for the other commands, and from recorders that do not say).
    public var outcome: LifecycleOutcome?

    public init(ok: Bool, failure: ControlFailure? = nil, status: RecorderStatus? = nil, outcome: LifecycleOutcome? = nil) {
        self.ok = ok
        self.failure = failure
        self.status = status
        self.outcome = outcome
    }
}

/// Whether a lifecycle command changed the measurement; the raw values are the JSON words.
public enum LifecycleOutcome: String, Codable, Sendable, Equatable, CaseIterable {
    /// It took effect: its event was recorded.
    case changed
    /// The measurement already was as asked (`modality` with the modality in force): nothing
    /// was recorded.
    case unchanged
}

/// Why the recorder refused or failed a request.
public struct ControlFailure: Codable, Sendable, Error, Equatable, CustomStringConvertible {
    /// The kind of failure; the raw values are the protocol's words.
    public enum Kind: String, Codable, Sendable, Equatable, CaseIterable {
        /// `pause` or `modality` while not capturing.
        case notCapturing
        /// `resume` while not paused.
        case notPaused
        /// No measurement is open.
        case notOpen
        /// The measurement was started already.
        case alreadyStarted
        /// A commit failed for another reason than a full disk.
        case storage
        /// A commit failed because the disk (or `--max-store-size`) is full.
        case diskFull
        /// The request was unreadable or named no known command or modality.
        case badRequest
    }

    /// What went wrong, for the exit code.
    public var kind: Kind
    /// One line for a person.
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    init(_ error: LifecycleError) {
        switch error {
        case .alreadyStarted: kind = .alreadyStarted
        case .notOpen: kind = .notOpen
        case .notCapturing: kind = .notCapturing
        case .notPaused: kind = .notPaused
        }
        message = error.description
    }

    /// A failed commit: `diskFull` when the disk (or `--max-store-size`) is full, so that the
    /// command exits with the disk-full code; `storage` otherwise.
    init(_ error: StoreError) {
        if case .diskFull = error { kind = .diskFull } else { kind = .storage }
        message = error.description
    }

    public var description: String { message }
}

/// What a running recorder reports about itself.
public struct RecorderStatus: Codable, Sendable, Equatable {
    public struct SourceState: Codable, Sendable, Equatable {
        /// Where a source's thread stands; the raw values are the JSON words.
        public enum State: String, Codable, Sendable, Equatable, CaseIterable {
            /// Delivering samples.
            case running
            /// It returned: a trace or file played to its end.
            case ended
            /// It threw (``SourceState/error`` says why); the other sources go on.
            case failed
        }

        public var name: String
        public var state: State
        public var error: String?
        /// Samples delivered by the source since the recorder started.
        public var samples: Int
        /// Samples, scans or sentences the source lost or skipped (bad sentences, undecodable
        /// scans); `nil` from recorders that do not count them.
        public var lost: Int?
        /// Inputs of kinds not used (NMEA GSV, proprietary sentences), skipped; not a loss.
        public var skipped: Int?
        /// GNSS sources: whether they have a fix.
        public var gnss: GNSSFixState?
        /// The source's last remark (rate chosen, reconnecting, why samples were lost).
        public var note: String?
    }

    public struct SensorRate: Codable, Sendable, Equatable {
        /// `acc`, `gyr`, `mag`, `prs` or `fix`.
        public var sensor: String
        /// Samples captured since the recorder started (committed or pending).
        public var captured: Int
        /// Capture rate over the last ten seconds, Hz.
        public var rate: Double
    }

    public var pid: Int32
    public var measurement: Int64
    public var state: MeasurementState
    public var track: Int
    public var modality: Modality?
    public var flushIntervalMs: Int64
    /// Unix ms when this recorder process started.
    public var startedAt: Int64
    public var sources: [SourceState]
    public var sensors: [SensorRate]
    public var lastFix: Fix?
    /// Samples dropped because they arrived while the measurement was paused.
    public var droppedWhilePaused: Int
    /// Samples rejected because they cannot be stored (NaN, far out of range).
    public var rejectedUnstorable: Int = 0
    /// Samples waiting for the next flush.
    public var pendingSamples: Int
    /// Sources that failed (no permission, device vanished); the others go on.
    public var failedSources: Int?
    /// Samples lost by all sources together (see ``SourceState/lost``).
    public var lostSamples: Int?
    /// The trace being written with `--record-trace`, if any.
    public var recordingTrace: String?
    /// The host clock against GNSS time, once a live receiver delivered a fix.
    public var clock: ClockReport?
    /// Samples durable in the flush log, not yet in the database (StagedCommits).
    public var staged: SampleCounts?
    /// With `ride.detect: auto`: armed, recording or still, and since when.
    public var ride: RideStatus?
    /// `true` while lifecycle events wait in the flush log because another process holds the
    /// database (they go in with the first commit it lets through); absent otherwise.
    public var eventsWaiting: Bool?
}
