package import CaptureCore
package import CaptureStorage
import CaptureSensors
import Foundation
import Glibc

/// What `capture status` shows. Field names and values are the `--json` output's.
package struct StatusReport: Codable, Sendable, Equatable {
    /// The data directory (absolute).
    package var dataDirectory: String
    /// The store's device identity.
    package var device: String?
    /// Where the directory stands.
    /// Where the data directory stands: `idle` when no measurement is open.
    package var state: MeasurementState
    /// The open measurement.
    package var measurement: Int64?
    /// Its current (or last) track.
    package var track: Int?
    /// The modality in force.
    package var modality: Modality?
    /// What is committed (durable) for the open measurement: in the database, and what a live
    /// recorder staged in the flush log.
    package var committed: SampleCounts?
    /// What the running recorder says about itself.
    package var recorder: RecorderStatus?
    /// For an interrupted measurement: why its recording ended, when its journal says.
    package var ended: RecordingEnd?
    /// `true` while a recorder holds the data directory but does not answer yet (it is
    /// starting and has not taken the interrupted measurement on); absent otherwise.
    package var recorderStarting: Bool?
    /// Finished measurements per upload state (pending, uploading, uploaded, skipped, failed;
    /// ``interruptedUpload`` for a session no running uploader holds).
    package var uploads: [String: Int]?
    /// The key of ``uploads`` for an upload that was stopped and waits to be resumed.
    package static let interruptedUpload = "interrupted"
    /// Delivery figures over all finished measurements (absent while there are none).
    package var delivery: DeliveryTotals?
    /// What `capture sync` remembers: failed passes in a row, the next attempt (absent before
    /// the first pass).
    package var sync: DeliveryState?
    /// With `ride.detect: auto`: armed, recording or still, and since when.
    package var ride: RideStatus?
    /// How rides began and ended (absent while none did so by the ride rules or a power cut).
    package var rides: RideTally?
    /// The data directory and database files that group or others can read, each with the
    /// `chmod` that makes it private; empty when the data is private (``PrivacyCheck``).
    package var exposed: [PrivacyCheck.Exposure] = []
    /// The device login (`capture login`): how it stands and when it ends if nothing refreshes
    /// it (absent without a login file that says).
    package var login: LoginLifetime.Report?

    /// A report with nothing known yet but the directory and `state`.
    package init(dataDirectory: String, state: MeasurementState) {
        self.dataDirectory = dataDirectory
        self.state = state
    }
}

/// How rides began and ended, as the store counts them: a count per ``RideCount``, 0 for a kind
/// not counted. Its JSON has every kind, named by its case (`begunByMotion`).
package struct RideTally: Codable, Sendable, Equatable {
    private var counts: [RideCount: Int]

    package init(_ counts: [RideCount: Int] = [:]) {
        self.counts = counts.filter { $0.value != 0 }
    }

    package subscript(kind: RideCount) -> Int { counts[kind] ?? 0 }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        init(_ kind: RideCount) { stringValue = "\(kind)" }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var counts: [RideCount: Int] = [:]
        for kind in RideCount.allCases { counts[kind] = try container.decodeIfPresent(Int.self, forKey: Key(kind)) }
        self.init(counts)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for kind in RideCount.allCases { try container.encode(self[kind], forKey: Key(kind)) }
    }
}
