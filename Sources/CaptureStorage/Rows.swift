import CaptureCore
import Foundation
import GRDB

// The rows of the tables the readers (`Store+Read.swift`) and the transfer snapshot read,
// decoded by column name: GRDB records with a `Columns` enum, as GRDB's demo app's `Player`, so
// that a change to a SELECT cannot shift what a field reads. The public types (`MeasurementRecord`,
// `Fix`, …) cannot be GRDB records themselves (GRDB is imported internally, so a public
// conformance to its protocols is not possible); each table has a small record here that wraps
// one. Fetched as records (`fetchAll`, `fetchCursor`), a row is read from the statement, whose
// column names GRDB looks up once per query.
//
// Not here: the measured hot paths, which bind and read by position through SQLite's C API
// (``DirectStatement`` for the commit path, ``DirectQuery`` for the serialiser); BENCHMARKS.md
// says what each saves.

/// A `measurement` row.
struct MeasurementRow: FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let status = Column("status")
        static let modality = Column("modality")
        static let startTime = Column("start_ts")
        static let endTime = Column("end_ts")
        static let trackCount = Column("track_count")
        static let sources = Column("sources")
    }

    /// Every column the record reads.
    static let select = "SELECT id, status, modality, start_ts, end_ts, track_count, sources FROM measurement"

    var id: Int64
    /// The stored word, checked by ``record(path:)``.
    var status: String
    var modality: String
    var startTime: Int64
    var endTime: Int64?
    var trackCount: Int
    var sources: String

    init(row: Row) {
        id = row[Columns.id]
        status = row[Columns.status]
        modality = row[Columns.modality]
        startTime = row[Columns.startTime]
        endTime = row[Columns.endTime]
        trackCount = row[Columns.trackCount]
        sources = row[Columns.sources]
    }

    /// The row as a record; a status this version does not know means a damaged (or newer)
    /// database at `path`, not a finished measurement.
    func record(path: String) throws(StoreError) -> MeasurementRecord {
        guard let known = MeasurementState(rawValue: status), MeasurementState.storedStates.contains(known) else {
            throw .corrupt(path: path, reason: "measurement \(id) has the unknown status '\(status)'")
        }
        return MeasurementRecord(
            id: id, status: known, modality: modality, startTime: startTime, endTime: endTime, trackCount: trackCount,
            sources: sources)
    }
}

/// A `track` row.
struct TrackRow: FetchableRecord {
    enum Columns {
        static let number = Column("number")
        static let startTime = Column("start_ts")
        static let endTime = Column("end_ts")
    }

    let track: TrackRecord

    init(row: Row) {
        track = TrackRecord(number: row[Columns.number], startTime: row[Columns.startTime], endTime: row[Columns.endTime])
    }
}

/// An `event` row.
struct EventRow: FetchableRecord {
    enum Columns {
        static let timestamp = Column("ts")
        static let type = Column("type")
        static let value = Column("value")
    }

    /// `nil` for a type this version does not know, which the readers leave out.
    let event: Event?

    init(row: Row) {
        event = EventType(rawValue: row[Columns.type]).map {
            Event(timestamp: row[Columns.timestamp], type: $0, value: row[Columns.value])
        }
    }
}

/// A `location` row: a fix and its row number (the chunked reader's key, with the time).
struct LocationRow: FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let timestamp = Column("ts")
        static let latitude = Column("lat")
        static let longitude = Column("lon")
        static let altitude = Column("altitude")
        static let horizontalAccuracy = Column("horizontal_accuracy")
        static let verticalAccuracy = Column("vertical_accuracy")
        static let speed = Column("speed")
        static let course = Column("course")
        static let satellites = Column("satellites")
        static let hdop = Column("hdop")
        static let vdop = Column("vdop")
        static let pdop = Column("pdop")
        static let mode = Column("fix_mode")
    }

    let id: Int64
    let fix: Fix

    init(row: Row) {
        id = row[Columns.id]
        fix = Fix(
            timestamp: row[Columns.timestamp], latitude: row[Columns.latitude], longitude: row[Columns.longitude],
            altitude: row[Columns.altitude], horizontalAccuracy: row[Columns.horizontalAccuracy],
            verticalAccuracy: row[Columns.verticalAccuracy], speed: row[Columns.speed], course: row[Columns.course],
            satellites: row[Columns.satellites], hdop: row[Columns.hdop], vdop: row[Columns.vdop], pdop: row[Columns.pdop],
            mode: (row[Columns.mode] as Int?).flatMap(FixMode.init(rawValue:)))
    }
}

/// A `pressure` row.
struct PressureRow: FetchableRecord {
    enum Columns {
        static let timestamp = Column("ts")
        static let hectopascals = Column("hpa")
    }

    let sample: PressureSample

    init(row: Row) {
        sample = PressureSample(timestamp: row[Columns.timestamp], hectopascals: row[Columns.hectopascals])
    }
}

/// A `sensor_batch` row of one sensor, with its id (the chunked reader's key).
struct BatchRow: FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let track = Column("track")
        static let firstTime = Column("first_ts")
        static let lastTime = Column("last_ts")
        static let count = Column("count")
        static let data = Column("data")
    }

    let id: Int64
    let track: Int
    let firstTime: Int64
    let lastTime: Int64
    let count: Int
    let data: Data

    init(row: Row) {
        id = row[Columns.id]
        track = row[Columns.track]
        firstTime = row[Columns.firstTime]
        lastTime = row[Columns.lastTime]
        count = row[Columns.count]
        data = row[Columns.data]
    }

    /// The row as a stored batch of `sensor` (the one the query asked for).
    func batch(of sensor: MotionSensor) -> StoredBatch {
        StoredBatch(
            track: track, sensor: sensor, firstTime: firstTime, lastTime: lastTime, count: count, data: [UInt8](data))
    }
}
