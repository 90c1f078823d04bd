package import CaptureCore
package import CaptureSensors
package import CaptureStorage

/// Everything a recorder process needs to know: where, what from, how often it commits.
///
/// It reaches a background recorder whole, as JSON on the command line of `capture _record`
/// (``RecorderLauncher``): the recorder process never reads the configuration file for it, so a
/// file changed or gone since `capture start` cannot change how it records.
package struct RecorderConfiguration: Sendable, Equatable, Codable {
    /// The data directory (absolute).
    package var directory: String
    /// The initial modality of a new measurement (ignored when recovering); `nil` takes a
    /// trace source's `start` mark, else ``Modality/unknown``.
    package var modality: Modality?
    /// Source specs, normalised (``SourceRegistry/normalized(_:)``).
    package var sources: [String]
    /// The sysfs root and the IIO rate.
    package var sourceOptions: SourceOptions
    /// Where to also write what the sources deliver (`--record-trace`), absolute.
    package var recordTrace: String?
    /// Milliseconds between commits.
    package var flushInterval: Int64
    /// A ceiling for the database (`--max-store-size`).
    package var maximumSize: ByteSize?
    /// When host-clock times are put on GNSS time (`--gnss-time`).
    package var gnssTime: GNSSTimePolicy
    /// What may be pruned when the store is full (`retention:`).
    package var retention: RetentionPolicy?
    /// Where rides begin and end (`ride.*`). With `ride.detect: auto` a new recorder waits armed
    /// instead of starting a measurement.
    package var ride: RideSettings = .standard
    /// Whether each ride kept and the measurement the recorder leaves are delivered in the
    /// background (`upload.auto`).
    package var deliverAutomatically = false
    /// How much the recorder process writes to stderr (`log_level`).
    package var logLevel = LogLevel.warning
    /// With `fleet.push_url`: how often (ms, `fleet.interval`) the recorder has the heartbeat
    /// pushed, at a flush's wake-up; nil: never.
    package var heartbeatEvery: Int64?
    /// The LEDs that show the recorder's state (`indicator.*`).
    package var indicator = IndicatorSettings.standard
    /// The rider's button (`button.*`).
    package var button = ButtonSettings.standard

    /// A configuration; only the directory and the sources have no default.
    package init(
        directory: String, modality: Modality? = nil, sources: [String], sourceOptions: SourceOptions = SourceOptions(),
        recordTrace: String? = nil, flushInterval: Int64 = 1000, maximumSize: ByteSize? = nil,
        gnssTime: GNSSTimePolicy = .auto
    ) {
        self.gnssTime = gnssTime
        self.retention = nil
        self.directory = directory
        self.modality = modality
        self.sources = sources
        self.sourceOptions = sourceOptions
        self.recordTrace = recordTrace
        self.flushInterval = flushInterval
        self.maximumSize = maximumSize
    }

    /// The ceiling the store is opened with: `--max-store-size`, else `retention.max_store_size`,
    /// so that a recorder keeps the store within its budget as it records (reaching it prunes as
    /// ``retention`` allows and goes on), not only `capture sync` after it.
    package var storeCeiling: ByteSize? { maximumSize ?? retention?.maxStoreSize }
}
