public import CaptureCore
import CaptureStorage
import Foundation

/// A request to the recorder over its control socket: one JSON object on one line.
public struct ControlRequest: Codable, Sendable, Equatable {
    /// `status`, `pause`, `resume`, `stop` or `modality`.
    public var command: String
    /// The new modality for `modality`.
    public var modality: String?

    public init(command: String, modality: String? = nil) {
        self.command = command
        self.modality = modality
    }
}

/// The recorder's answer: one JSON object on one line.
public struct ControlReply: Codable, Sendable {
    public var ok: Bool
    public var failure: ControlFailure?
    public var status: RecorderStatus?

    public init(ok: Bool, failure: ControlFailure? = nil, status: RecorderStatus? = nil) {
        self.ok = ok
        self.failure = failure
        self.status = status
    }
}

/// Why the recorder refused or failed a request.
public struct ControlFailure: Codable, Sendable, Error, Equatable {
    /// `notCapturing`, `notPaused`, `notOpen`, `alreadyStarted`, `storage`, `diskFull` or `badRequest`.
    public var kind: String
    /// One line for a person.
    public var message: String

    public init(kind: String, message: String) {
        self.kind = kind
        self.message = message
    }

    init(_ error: LifecycleError) {
        switch error {
        case .alreadyStarted: kind = "alreadyStarted"
        case .notOpen: kind = "notOpen"
        case .notCapturing: kind = "notCapturing"
        case .notPaused: kind = "notPaused"
        }
        message = error.description
    }

    /// A failed commit: `diskFull` when the disk (or `--max-store-size`) is full, so that the
    /// command exits with the disk-full code; `storage` otherwise.
    init(_ error: StoreError) {
        if case .diskFull = error { kind = "diskFull" } else { kind = "storage" }
        message = error.description
    }
}

/// What a running recorder reports about itself.
public struct RecorderStatus: Codable, Sendable, Equatable {
    public struct SourceState: Codable, Sendable, Equatable {
        public var name: String
        /// `running`, `ended` or `failed`.
        public var state: String
        public var error: String?
        /// Samples delivered by the source since the recorder started.
        public var samples: Int
        /// Samples, scans or sentences the source lost or skipped (bad sentences, undecodable
        /// scans); `nil` from recorders that do not count them.
        public var lost: Int?
        /// Inputs of kinds not used (NMEA GSV, proprietary sentences), skipped; not a loss.
        public var skipped: Int?
        /// GNSS sources: `searching`, `fixed` or `lost` (no fix for 2 s).
        public var gnss: String?
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
    public var state: String
    public var track: Int
    public var modality: String?
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
}
