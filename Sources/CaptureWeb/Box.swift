package import CaptureCore
package import CaptureExport
package import CaptureRecorder
package import CaptureStorage
package import CaptureSurface
package import Foundation
import Glibc

/// What the page reads of the box and asks of it: the same values and calls the command line
/// uses (``RecorderControl``'s status, list and summary; the recorder's control socket; the
/// automatic delivery's `capture sync`). Reads go to the store as any reader's do (SQLite lets a
/// reader in beside the recorder's writes); commands go to the recorder, which decides.
package struct Box: Sendable {
    /// Something the rider asks of the box.
    package enum Action: Sendable, Equatable {
        /// A marker now in the ride under way (as a short press of the button).
        case mark
        /// Begin a ride now (armed, `ride.detect: auto`).
        case begin
        /// End the ride under way (as `capture stop`).
        case end
        /// The modality from now on (or of the next ride, armed).
        case modality(Modality)
        /// Deliver now: `capture sync --now` in the background.
        case deliver
    }

    /// What an action did.
    package enum Outcome: Sendable, Equatable {
        /// The recorder took it: its report.
        case recorded(LifecycleReport)
        /// A delivery was started.
        case delivering(AutomaticDelivery.Outcome)
    }

    /// The data directory.
    package let directory: String
    /// The store's budget (`retention.max_store_size`), for the page's store line.
    package var budget: ByteSize?
    /// How rides' surface is rated and drawn (`surface.*`, `privacy.zones`).
    package var surface: SurfaceOptions
    /// Starts `capture sync --now` (replaced in tests).
    package var deliver: @Sendable (String) -> AutomaticDelivery.Outcome = { directory in
        AutomaticDelivery.start(directory: directory, command: ["sync", "--now"])
    }

    package init(directory: String, budget: ByteSize? = nil, surface: SurfaceOptions) {
        (self.directory, self.budget, self.surface) = (directory, budget, surface)
    }

    private var control: RecorderControl { RecorderControl(directory: directory) }

    /// What `capture status --json` says.
    package func status() throws -> StatusReport { try control.status() }

    /// The measurements, oldest first, as `capture list --json` says.
    package func rides() throws -> [MeasurementListEntry] { try control.list() }

    /// One measurement, as `capture show --json` says.
    package func ride(_ id: Int64) throws -> MeasurementSummary { try control.summary(of: id) }

    /// The store's database size on disk, bytes (0 before the first ride).
    package func storeSize() throws -> Int64 {
        try DataDirectory.existingStore(at: directory)?.fileSize() ?? 0
    }

    /// Measurement `id` drawn as `capture plot --colour surface` draws it: the track coloured by
    /// surface class, grey where no window was rated. A ride that cannot be rated (no
    /// accelerometer, too short) is drawn coloured by speed.
    package func map(_ id: Int64) throws -> Data {
        let file = NSTemporaryDirectory() + "capture-serve-\(getpid())-\(UUID().uuidString).svg"
        defer { unlink(file) }
        let export = ExportOptions(dataDirectory: directory, privacyZones: surface.privacyZones)
        guard let store = try DataDirectory.existingStore(at: directory) else { throw StoreError.measurementNotFound(id) }
        do {
            try Surface.plot(id, in: store, options: surface, export: export, to: .file(file))
        } catch .noAccelerometer {
            try PlotExporter().export(id, from: store, options: export, to: .file(file))
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw StoreError.measurementNotFound(id) }
        return data
    }

    /// Does what the rider asked.
    package func perform(_ action: Action, by source: String = "page") throws -> Outcome {
        switch action {
        case .mark: .recorded(try control.mark(by: source))
        case .begin: .recorded(try control.beginRide())
        case .end: .recorded(try control.stop())
        case .modality(let modality): .recorded(try control.changeModality(to: modality))
        case .deliver: .delivering(deliver(directory))
        }
    }
}
