public import CaptureCore
public import CaptureTransfer
import Foundation
import GRDB

/// Why a decoded transfer file cannot become a measurement.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The lifecycle events cannot be sliced into tracks (spec §3.3), e.g. a RESUME without a
    /// preceding PAUSE.
    case invalidLifecycle(String)
    /// A value no ride can have (a latitude beyond ±90°), or nothing at all to import.
    case invalidContent(String)
    /// The same content (``CyfaceTransferFile/contentDigest``) was imported before, as this
    /// measurement; with ``ImportDuplicates/refuse`` nothing is stored.
    case alreadyImported(measurement: Int64)

    /// One line: what is wrong with the file.
    public var description: String {
        switch self {
        case .invalidLifecycle(let detail): "invalid lifecycle events: \(detail)"
        case .invalidContent(let detail): detail
        case .alreadyImported(let id): "the same ride is already stored as measurement \(id)"
        }
    }
}

/// What an import does with content that was imported before (the same
/// ``CyfaceTransferFile/contentDigest``).
public enum ImportDuplicates: Sendable, Equatable {
    /// Refuse it with ``ImportError/alreadyImported(measurement:)``; nothing is stored.
    case refuse
    /// Store it again as a new measurement, on purpose (`capture import --again`).
    case importAgain
}

/// What an import stored.
public struct ImportSummary: Sendable, Equatable, Codable {
    /// The new measurement's id.
    public var measurement: Int64
    /// The number of tracks (one per LIFECYCLE_START/RESUME, at least one).
    public var tracks: Int
    /// Fixes stored, including those in pause gaps.
    public var locations: Int
    /// Accelerometer samples stored.
    public var accelerometer: Int
    /// Gyroscope samples stored.
    public var gyroscope: Int
    /// Magnetometer samples stored.
    public var magnetometer: Int
    /// Events stored.
    public var events: Int
    /// Fixes and motion samples that fall into a pause gap (pause < t < resume): stored with
    /// track 0, outside every track, as the server drops them when it slices tracks.
    public var inPauseGaps: Int
    /// `EVENT_TYPE_UNSPECIFIED` (metadata) events, which are not stored.
    public var skippedMetadataEvents: Int
}

/// The tracks of a measurement sliced from its lifecycle events exactly as the Cyface server does
/// it (spec §3.3, `TrackBuilder`): track 1 holds everything up to and including the first PAUSE;
/// every RESUME starts a new track that holds everything from the RESUME up to and including the
/// next PAUSE; the last track is not cut at STOP. Timestamps strictly between a PAUSE and the
/// following RESUME belong to no track (0).
public struct TrackSlicing: Sendable, Equatable {
    /// One track: `[start, end]` in Unix ms; `nil` bounds are open.
    public struct Interval: Sendable, Equatable {
        /// The first timestamp of the track (its START or RESUME), `nil` for "from the beginning".
        public var start: Int64?
        /// The PAUSE that ends the track, `nil` for "to the end".
        public var end: Int64?
    }

    /// The tracks, in order; track `n` is `intervals[n - 1]`.
    public private(set) var intervals: [Interval]

    /// Slices from events in any order (they are sorted by time, stably).
    ///
    /// - Throws: ``ImportError/invalidLifecycle(_:)`` for a RESUME without a preceding PAUSE.
    public init(events: [Event]) throws(ImportError) {
        let ordered = events.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
            .map(\.element)
        var intervals = [Interval(start: ordered.first { $0.type == .lifecycleStart }?.timestamp, end: nil)]
        var lastPause: Int64?
        for event in ordered {
            switch event.type {
            case .lifecyclePause:
                lastPause = event.timestamp
            case .lifecycleResume:
                guard let pause = lastPause else {
                    throw .invalidLifecycle("LIFECYCLE_RESUME at \(event.timestamp) without a preceding LIFECYCLE_PAUSE")
                }
                intervals[intervals.count - 1].end = pause
                intervals.append(Interval(start: event.timestamp, end: nil))
                lastPause = nil
            case .lifecycleStart, .lifecycleStop, .modalityTypeChange:
                break
            }
        }
        self.intervals = intervals
    }

    /// The track of a timestamp (1-based), or 0 when it falls into a pause gap.
    public func track(of time: Int64) -> Int {
        // Tracks are few; a linear scan from the end is simplest and fast enough.
        for (index, interval) in intervals.enumerated().reversed() {
            if let start = interval.start, time < start, index > 0 { continue }
            if let end = interval.end, time > end { return 0 }
            return index + 1
        }
        return 1
    }
}

extension Store {
    /// Creates a finished measurement from a decoded transfer file, in one transaction: nothing is
    /// stored if anything fails.
    ///
    /// - Events are stored as given (file order); `EVENT_TYPE_UNSPECIFIED` metadata events are
    ///   skipped and counted.
    /// - Tracks are sliced from the lifecycle events with ``TrackSlicing`` (spec §3.3); there is
    ///   one per START/RESUME, with the RESUME (or START, else the first timestamp) as its start
    ///   and the next PAUSE (else STOP, else the last timestamp) as its end.
    /// - Fixes and sensor samples are assigned to tracks by time. Those strictly inside a pause
    ///   gap (PAUSE < t < RESUME) are kept, with track 0, so no data is lost, but they belong to
    ///   no track, consistent with how the server slices tracks.
    /// - Sensor batches are stored one row per batch as they came; a batch is only split where a
    ///   track boundary runs through it or to keep rows at ≤ ``Store/maximumBatch`` samples.
    /// - The measurement's modality is the first MODALITY_TYPE_CHANGE (UNKNOWN without one), its
    ///   start the LIFECYCLE_START (else the earliest timestamp), its end the LIFECYCLE_STOP
    ///   (else the latest timestamp).
    ///
    /// - The content's digest (``CyfaceTransferFile/contentDigest``) is remembered with the
    ///   measurement; content imported before is refused unless `duplicates` is
    ///   ``ImportDuplicates/importAgain`` (the check and the insert are one transaction). So is
    ///   the content of a measurement recorded in this store (its export coming back,
    ///   ``recordedMeasurement(matching:digest:)``).
    ///
    /// - Throws: ``ImportError`` for inconsistent lifecycle events or content already imported,
    ///   ``StoreError`` for storage failures, ``CyfaceError`` if a value cannot be stored in the
    ///   format.
    public func importMeasurement(
        _ file: CyfaceTransferFile, sources: String = "import", duplicates: ImportDuplicates = .refuse
    ) throws -> ImportSummary {
        if let fix = file.fixes.first(where: { !(abs($0.latitude) <= 90 && abs($0.longitude) <= 180) }) {
            throw ImportError.invalidContent(
                "the fix at \(fix.timestamp) has latitude \(fix.latitude), longitude \(fix.longitude): not a position on Earth")
        }
        guard !file.fixes.isEmpty || !file.events.isEmpty || file.batches.values.contains(where: { !$0.isEmpty }) else {
            throw ImportError.invalidContent("the file holds no fixes, samples or events: nothing to import")
        }
        let slicing = try TrackSlicing(events: file.events)
        let events = file.events
        var earliest = Int64.max
        var latest = Int64.min
        func see(_ t: Int64) {
            earliest = min(earliest, t)
            latest = max(latest, t)
        }
        for fix in file.fixes { see(fix.timestamp) }
        for event in events { see(event.timestamp) }
        for batches in file.batches.values {
            for batch in batches { for sample in batch { see(sample.timestamp) } }
        }
        if earliest > latest { (earliest, latest) = (0, 0) }
        let start = events.first { $0.type == .lifecycleStart }?.timestamp ?? earliest
        let end = events.last { $0.type == .lifecycleStop }?.timestamp ?? latest
        let modality =
            events.first { $0.type == .modalityTypeChange }?.value.flatMap(Modality.init(parsing:)) ?? .unknown

        var summary = ImportSummary(
            measurement: 0, tracks: slicing.intervals.count, locations: file.fixes.count, accelerometer: 0, gyroscope: 0,
            magnetometer: 0, events: events.count, inPauseGaps: 0, skippedMetadataEvents: file.metadataEvents.count)
        let digest = file.contentDigest
        if duplicates == .refuse, let recorded = try recordedMeasurement(matching: file, digest: digest) {
            throw ImportError.alreadyImported(measurement: recorded)
        }
        do {
            summary.measurement = try queue.write { db -> Int64 in
                if duplicates == .refuse,
                    let earlier = try Int64.fetchOne(
                        db, sql: "SELECT measurement_id FROM measurement_origin WHERE content_sha256 = ? ORDER BY measurement_id",
                        arguments: [digest])
                {
                    throw ImportError.alreadyImported(measurement: earlier)
                }
                try db.execute(
                    sql: """
                        INSERT INTO measurement (status, modality, start_ts, end_ts, track_count, sources)
                        VALUES ('finished', ?, ?, ?, ?, ?)
                        """,
                    arguments: [modality.rawValue, start, end, slicing.intervals.count, sources])
                let id = db.lastInsertedRowID
                try db.execute(
                    sql: "INSERT INTO measurement_origin (measurement_id, content_sha256) VALUES (?, ?)", arguments: [id, digest])
                for (index, interval) in slicing.intervals.enumerated() {
                    let trackStart = interval.start ?? (index == 0 ? min(start, earliest) : earliest)
                    let trackEnd = interval.end ?? max(end, latest)
                    try db.execute(
                        sql: "INSERT INTO track (measurement_id, number, start_ts, end_ts) VALUES (?, ?, ?, ?)",
                        arguments: [id, index + 1, trackStart, trackEnd])
                }
                let eventStatement = try db.makeStatement(
                    sql: "INSERT INTO event (measurement_id, ts, type, value) VALUES (?, ?, ?, ?)")
                for event in events {
                    try eventStatement.execute(arguments: [id, event.timestamp, event.type.rawValue, event.value])
                }
                let fixStatement = try db.makeStatement(sql: Store.insertLocation)
                for (row, fix) in file.fixes.enumerated() {
                    let track = slicing.track(of: fix.timestamp)
                    if track == 0 { summary.inPauseGaps += 1 }
                    try fixStatement.execute(arguments: [
                        id, row + 1, track, fix.timestamp, fix.latitude, fix.longitude, fix.altitude, fix.horizontalAccuracy,
                        fix.verticalAccuracy, fix.speed, fix.course, fix.satellites, fix.hdop, fix.vdop, fix.pdop,
                        fix.mode?.rawValue,
                    ])
                }
                let batchStatement = try db.makeStatement(sql: Store.insertSensorBatch)
                for sensor in MotionSensor.allCases {
                    for batch in file.batches[sensor] ?? [] {
                        var runStart = 0
                        while runStart < batch.count {
                            let track = slicing.track(of: batch[runStart].timestamp)
                            var runEnd = runStart + 1
                            while runEnd < batch.count, runEnd - runStart < Store.maximumBatch,
                                slicing.track(of: batch[runEnd].timestamp) == track
                            {
                                runEnd += 1
                            }
                            let run = batch[runStart..<runEnd]
                            let body = try CyfaceBatch.encode(run, sensor: sensor)
                            try batchStatement.execute(arguments: [
                                id, track, sensor.rawValue, batch[runStart].timestamp, batch[runEnd - 1].timestamp, run.count, Data(body),
                            ])
                            if track == 0 { summary.inPauseGaps += run.count }
                            runStart = runEnd
                        }
                        switch sensor {
                        case .accelerometer: summary.accelerometer += batch.count
                        case .gyroscope: summary.gyroscope += batch.count
                        case .magnetometer: summary.magnetometer += batch.count
                        }
                    }
                }
                return id
            }
        } catch let error as CyfaceError {
            throw error
        } catch let error as ImportError {
            throw error
        } catch {
            throw Self.map(error, path: path)
        }
        return summary
    }
}
