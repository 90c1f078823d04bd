package import CaptureCore
package import CaptureSensors
package import CaptureStorage
import Foundation

/// A request to the recorder over its control socket: one JSON object on one line,
/// `{"command":"modality","modality":"WALKING"}`.
package struct ControlRequest: Codable, Sendable, Equatable {
    /// What the recorder is asked to do; the raw values are the protocol's words.
    package enum Command: String, Codable, Sendable, Equatable, CaseIterable {
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
        /// Mark the moment in the ride under way, as a short press of the button does
        /// (``ControlRequest/source`` names who marked).
        case mark
        /// Begin a ride now, as a long press does while armed (`ride.detect: auto` only).
        case begin
    }

    /// What is asked.
    package var command: Command
    /// The new modality for ``Command/modality``.
    package var modality: Modality?
    /// Who marks, for ``Command/mark`` (the marker's source: `page`); `control` when absent.
    package var source: String?

    package init(command: Command, modality: Modality? = nil, source: String? = nil) {
        self.command = command
        self.modality = modality
        self.source = source
    }

    /// `modality` with its new modality.
    package static func modality(_ modality: Modality) -> ControlRequest {
        ControlRequest(command: .modality, modality: modality)
    }
}

/// The recorder's answer: one JSON object on one line.
package struct ControlReply: Codable, Sendable {
    package var ok: Bool
    package var failure: ControlFailure?
    package var status: RecorderStatus?
    /// For `modality`: whether it changed the modality or the modality was in force already
    /// (`nil` for the other commands, and from recorders that do not say).
    package var outcome: LifecycleOutcome?

    package init(ok: Bool, failure: ControlFailure? = nil, status: RecorderStatus? = nil, outcome: LifecycleOutcome? = nil) {
        self.ok = ok
        self.failure = failure
        self.status = status
        self.outcome = outcome
    }
}

/// Whether a lifecycle command changed the measurement; the raw values are the JSON words.
package enum LifecycleOutcome: String, Codable, Sendable, Equatable, CaseIterable {
    /// It took effect: its event was recorded.
    case changed
    /// The measurement already was as asked (`modality` with the modality in force): nothing
    /// was recorded.
    case unchanged
}

/// Why the recorder refused or failed a request.
package struct ControlFailure: Codable, Sendable, Error, Equatable, CustomStringConvertible {
    /// The kind of failure; the raw values are the protocol's words.
    package enum Kind: String, Codable, Sendable, Equatable, CaseIterable {
        /// `pause` or `modality` while not capturing.
        case notCapturing
        /// `resume` while not paused.
        case notPaused
        /// No measurement is open.
        case notOpen
        /// The measurement was started already (`begin`: a ride is under way, or rides are not
        /// detected: `capture start` begins a measurement).
        case alreadyStarted
        /// A commit failed for another reason than a full disk.
        case storage
        /// A commit failed because the disk (or `--max-store-size`) is full.
        case diskFull
        /// The request was unreadable or named no known command or modality.
        case badRequest
    }

    /// What went wrong, for the exit code.
    package var kind: Kind
    /// One line for a person.
    package var message: String

    package init(kind: Kind, message: String) {
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

    package var description: String { message }
}

/// What a running recorder reports about itself.
package struct RecorderStatus: Codable, Sendable, Equatable {
    package struct SourceState: Codable, Sendable, Equatable {
        /// Where a source's thread stands; the raw values are the JSON words.
        package enum State: String, Codable, Sendable, Equatable, CaseIterable {
            /// Delivering samples.
            case running
            /// It returned: a trace or file played to its end.
            case ended
            /// It threw (``SourceState/error`` says why); the other sources go on.
            case failed
        }

        package var name: String
        package var state: State
        package var error: String?
        /// Samples delivered by the source since the recorder started.
        package var samples: Int
        /// Samples, scans or sentences the source lost or skipped (bad sentences, undecodable
        /// scans); `nil` from recorders that do not count them.
        package var lost: Int?
        /// Inputs of kinds not used (NMEA GSV, proprietary sentences), skipped; not a loss.
        package var skipped: Int?
        /// GNSS sources: whether they have a fix.
        package var gnss: GNSSFixState?
        /// The source's last remark (rate chosen, reconnecting, why samples were lost).
        package var note: String?
    }

    package struct SensorRate: Codable, Sendable, Equatable {
        /// `acc`, `gyr`, `mag`, `prs` or `fix`.
        package var sensor: String
        /// Samples captured since the recorder started (committed or pending).
        package var captured: Int
        /// Capture rate over the last ten seconds, Hz.
        package var rate: Double
    }

    package var pid: Int32
    package var measurement: Int64
    package var state: MeasurementState
    package var track: Int
    package var modality: Modality?
    package var flushIntervalMs: Int64
    /// Unix ms when this recorder process started.
    package var startedAt: Int64
    package var sources: [SourceState]
    package var sensors: [SensorRate]
    package var lastFix: Fix?
    /// Samples dropped because they arrived while the measurement was paused.
    package var droppedWhilePaused: Int
    /// Samples rejected because they cannot be stored (NaN, far out of range).
    package var rejectedUnstorable: Int = 0
    /// Samples waiting for the next flush.
    package var pendingSamples: Int
    /// Sources that failed (no permission, device vanished); the others go on.
    package var failedSources: Int?
    /// Samples lost by all sources together (see ``SourceState/lost``).
    package var lostSamples: Int?
    /// The trace being written with `--record-trace`, if any.
    package var recordingTrace: String?
    /// The host clock against GNSS time, once a live receiver delivered a fix.
    package var clock: ClockReport?
    /// Samples durable in the flush log, not yet in the database (StagedCommits).
    package var staged: SampleCounts?
    /// How long the last flushes (up to ``FlushLatencies/capacity``) took to be durable: a record
    /// of the flush log written and synced. Absent before the first.
    package var flushes: StorageLatency?
    /// With `ride.detect: auto`: armed, recording or still, and since when.
    package var ride: RideStatus?
    /// `true` while lifecycle events wait in the flush log because another process holds the
    /// database (they go in with the first commit it lets through); absent otherwise.
    package var eventsWaiting: Bool?
}
