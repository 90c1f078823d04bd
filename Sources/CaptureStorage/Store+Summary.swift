public import CaptureCore

/// A measurement's upload state as `show` and `list` report it (the JSON field `upload`).
public struct UploadSummary: Sendable, Equatable, Codable {
    /// pending, uploading, uploaded, skipped or failed.
    public var status: UploadRecord.Status
    /// Why it was skipped or failed.
    public var reason: String?
    /// Bytes the collector confirmed.
    public var acknowledged: Int64
    /// The transfer file's size in bytes, once an upload began.
    public var totalLength: Int64?
    /// Unix ms of success.
    public var uploadedAt: Int64?
    /// Upload runs that tried it and retries within them; with the first try (Unix ms) and,
    /// once delivered, the delay from its stop to its delivery. Absent before the first try.
    public var attempts: Int?
    public var retries: Int?
    public var firstTryAt: Int64?
    public var deliveryDelayMs: Int64?

    /// The summary of a stored upload record.
    public init(_ record: UploadRecord) {
        status = record.status
        reason = record.reason
        acknowledged = record.acknowledged
        totalLength = record.totalLength
        uploadedAt = record.uploadedAt
    }
}

/// One measurement as `capture show` reports it: tracks, events, counts, time span, its figures
/// (distance, moving time, altitude: ``RideFigures``), bounding box and upload state. Its JSON form is `capture show --json`.
///
/// Distances are rounded to millimetres and coordinates to 1e-7° (about 1 cm), so that golden
/// files do not depend on the last bits of a `Double`.
public struct MeasurementSummary: Sendable, Codable {
    /// One track of the measurement.
    public struct Track: Sendable, Codable {
        public var number: Int
        /// Unix ms of its start (START or RESUME) and end (PAUSE or STOP; `nil` while open).
        public var start: Int64
        public var end: Int64?
        /// The modality in force at the track's start.
        public var modality: String
        public var counts: SampleCounts
        /// Geodesic distance over clean fixes, metres.
        public var distanceMeters: Double
    }

    /// One event, its type spelled as in the Cyface format (`LIFECYCLE_START`).
    public struct EventSummary: Sendable, Codable {
        public var timestamp: Int64
        public var type: String
        public var value: String?
    }

    public var id: Int64
    /// `capturing` or `paused` while a running recorder holds it, else `interrupted` if it is
    /// open; `finished` (``MeasurementState/seen(id:held:)``).
    public var status: MeasurementState
    /// The initial modality.
    public var modality: String
    /// Unix ms of the start and the end (`nil` while open), and the span between.
    public var start: Int64
    public var end: Int64?
    public var durationMs: Int64?
    public var counts: SampleCounts
    /// Geodesic distance over clean fixes, summed per track (pause gaps are not counted).
    public var distanceMeters: Double
    public var boundingBox: BoundingBox?
    public var tracks: [Track]
    public var events: [EventSummary]
    /// Distance, duration, moving time and altitude, as every command states them
    /// (``RideFigures``); `distanceMeters` and `durationMs` above are the same figures.
    public var figures: RideFigures
    /// The barometer's profile in detail (first and last pressure, the sea-level pressure used),
    /// when the measurement has pressure samples; the ride's altitude is `figures.altitude`.
    /// Relative to the first sample with the standard sea-level pressure (1013.25 hPa), or
    /// absolute with a QNH; heights in metres rounded to mm.
    public var barometricAltitude: BarometricProfile?
    public var upload: UploadSummary
    /// Its attachments and their upload state (absent when it has none).
    public var attachments: [AttachmentRecord]? = nil
    /// What was added to its host-clock times to put them on GNSS time (``Store/applyClockCorrection(_:to:motion:)``),
    /// if anything.
    public var clockCorrectionMs: Int64? = nil
    /// Which part of which measurement it is, if it was cut for the payload limit (``Store/cutIntoParts(_:limit:)``).
    public var part: MeasurementPart? = nil
    /// The moments the rider marked (``Store/markers(of:)``; absent when none).
    public var markers: [Marker]? = nil

    /// Rounds to millimetres.
    static func millimetres(_ metres: Double) -> Double { (metres * 1000).rounded() / 1000 }
    /// Rounds to 1e-7 degrees (about 1 cm).
    static func micro(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }
}

/// One line of `capture list`; its JSON form is an element of `capture list --json`.
public struct MeasurementListEntry: Sendable, Codable {
    public var id: Int64
    /// A stored state, or `interrupted` (open, no running recorder holds it).
    public var status: MeasurementState
    /// The initial modality.
    public var modality: String
    /// Unix ms of the start and the end (`nil` while open).
    public var start: Int64
    public var end: Int64?
    public var tracks: Int
    public var counts: SampleCounts
    public var upload: UploadSummary
    /// Which part of which measurement it is, if it was cut for the payload limit (absent otherwise).
    public var part: MeasurementPart? = nil
}

extension Store {
    /// The summary of one measurement, as `capture show` prints it.
    ///
    /// - Parameters:
    ///   - qnh: the sea-level pressure of the day, hPa, for absolute barometric altitude; `nil`
    ///     for altitude relative to the first pressure sample.
    ///   - held: the measurement a running recorder says it holds, if any; an open measurement
    ///     it does not hold is `interrupted` (``MeasurementState/seen(id:held:)``).
    /// - Throws: ``StoreError/measurementNotFound(_:)`` and other ``StoreError``s.
    public func summary(of id: Int64, qnh: Double? = nil, held: HeldMeasurement? = nil) throws(StoreError) -> MeasurementSummary {
        let record = try measurement(id)
        let events = try events(of: id)
        var tracks: [MeasurementSummary.Track] = []
        var tally = RideFigures.Tally()
        let trackRecords = try self.tracks(of: id)
        for track in trackRecords {
            try forEachFix(of: id, track: track.number) { tally.add($0) }
            tally.endTrack()
            tracks.append(
                MeasurementSummary.Track(
                    number: track.number, start: track.startTime, end: track.endTime,
                    modality: Modality.spelling(at: track.startTime, events: events, initial: record.modality),
                    counts: try counts(of: id, track: track.number),
                    distanceMeters: MeasurementSummary.millimetres(tally.lastTrackMeters)))
        }
        let pressures = try pressures(of: id).map(\.hectopascals)
        let figures = tally.figures(
            start: record.startTime, end: record.endTime, tracks: trackRecords,
            lastSample: record.endTime == nil ? try lastTimestamp(of: id) : nil, pressures: pressures, qnh: qnh)
        let box = Geodesy.boundingBox(try fixes(of: id)).map {
            BoundingBox(
                minLatitude: MeasurementSummary.micro($0.minLatitude), maxLatitude: MeasurementSummary.micro($0.maxLatitude),
                minLongitude: MeasurementSummary.micro($0.minLongitude), maxLongitude: MeasurementSummary.micro($0.maxLongitude))
        }
        return MeasurementSummary(
            id: id, status: record.status.seen(id: id, held: held), modality: record.modality, start: record.startTime,
            end: record.endTime, durationMs: figures.durationMs, counts: try counts(of: id),
            distanceMeters: figures.distanceMeters, boundingBox: box, tracks: tracks,
            events: events.map { MeasurementSummary.EventSummary(timestamp: $0.timestamp, type: $0.type.name, value: $0.value) },
            figures: figures,
            barometricAltitude: BarometricProfile(hectopascals: pressures, qnh: qnh)?.roundingHeights(MeasurementSummary.millimetres),
            upload: try uploadSummary(of: id, stoppedAt: record.endTime),
            attachments: try attachments(of: id).nilIfEmpty, clockCorrectionMs: try clockCorrection(of: id),
            part: try part(of: id), markers: markers(of: id).nilIfEmpty)
    }

    /// The upload state of measurement `id` with its delivery accounting.
    public func uploadSummary(of id: Int64, stoppedAt: Int64?) throws(StoreError) -> UploadSummary {
        let record = try upload(of: id)
        var summary = UploadSummary(record)
        let (attempts, retries) = try uploadAccounting(of: id)
        if attempts > 0 {
            summary.attempts = attempts
            summary.retries = retries
            summary.firstTryAt = record.createdAt
            if let delivered = record.uploadedAt, let stoppedAt { summary.deliveryDelayMs = delivered - stoppedAt }
        }
        return summary
    }

    /// Every measurement, oldest first, as `capture list` prints them.
    ///
    /// - Parameter held: the measurement a running recorder says it holds, if any; every other
    ///   open measurement is reported as `interrupted` (``MeasurementState/seen(id:held:)``).
    public func listEntries(held: HeldMeasurement?) throws(StoreError) -> [MeasurementListEntry] {
        let uploads = try uploads()
        let parts = try parts()
        return try measurements().map { record throws(StoreError) in
            MeasurementListEntry(
                id: record.id, status: record.status.seen(id: record.id, held: held),
                modality: record.modality, start: record.startTime, end: record.endTime, tracks: record.trackCount,
                counts: try counts(of: record.id), upload: UploadSummary(uploads[record.id] ?? .pending(record.id)),
                part: parts[record.id])
        }
    }
}

extension Array {
    fileprivate var nilIfEmpty: Self? { isEmpty ? nil : self }
}
