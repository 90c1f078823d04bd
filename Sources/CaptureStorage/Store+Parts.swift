public import CaptureCore
public import CaptureTransfer
import Foundation
import GRDB

/// A measurement that is one of the consecutive parts a finished measurement was cut into for
/// delivery (``Store/cutIntoParts(_:limit:)``): the first part keeps the original's id. The JSON
/// field `part` of `capture list --json` and `capture show --json`.
public struct MeasurementPart: Sendable, Equatable, Codable {
    /// The measurement that was cut (the id of the first part).
    public var original: Int64
    /// 1-based.
    public var number: Int
    /// How many parts the original was cut into.
    public var count: Int

    /// Creates a description of a part.
    public init(original: Int64, number: Int, count: Int) {
        self.original = original
        self.number = number
        self.count = count
    }
}

/// How many finished measurements were cut into parts for delivery, and how many parts that made
/// (counters: parts stay counted after retention removes them). `capture metrics` shows them.
public struct PartTotals: Sendable, Equatable {
    /// Measurements cut.
    public var measurementsCut = 0
    /// Parts made of them, the first parts (which keep the original's id) included.
    public var parts = 0

    /// Totals of `measurementsCut` and `parts`.
    public init(measurementsCut: Int = 0, parts: Int = 0) {
        self.measurementsCut = measurementsCut
        self.parts = parts
    }
}

// A finished measurement whose transfer file could pass `collector.payload_limit` (recorded by an
// older version, or before the limit was lowered) is cut here into consecutive measurements, each
// within the limit, before an upload serialises it. The cut is one transaction: after a crash the
// measurement is either whole or all its parts exist, and each part is then delivered, resumed and
// recorded as any measurement is, exactly once.
extension Store {
    /// The part measurement `id` is, if it is one.
    public func part(of id: Int64) throws(StoreError) -> MeasurementPart? {
        try read { db in try Self.partRow(db, id) }
    }

    /// Every part there is, by measurement id.
    public func parts() throws(StoreError) -> [Int64: MeasurementPart] {
        try read { db in
            var parts: [Int64: MeasurementPart] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT measurement_id, original_id, number, count FROM measurement_part") {
                parts[row["measurement_id"]] = MeasurementPart(original: row["original_id"], number: row["number"], count: row["count"])
            }
            return parts
        }
    }

    /// The counters of cut measurements and their parts.
    public func partTotals() throws(StoreError) -> PartTotals {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(DISTINCT original_id) AS cut, count(*) AS parts FROM measurement_part")
            return PartTotals(measurementsCut: row?["cut"] ?? 0, parts: row?["parts"] ?? 0)
        }
    }

    /// Cuts finished measurement `id` into consecutive measurements whose transfer files each stay
    /// within `limit` bytes (bounded conservatively: ``TransferSizeBound``, ``PartPlan``), and
    /// returns their ids in order, `id` first; `[id]` when it fits as it is (or is open, or
    /// unknown: the upload reports those).
    ///
    /// Each part is a measurement of its own: the first keeps `id`, its attachments and its
    /// origin; the others get new ids. A part ends with LIFECYCLE_STOP at the cut and the next
    /// begins there with LIFECYCLE_START and the modality in force, its tracks numbered from 1.
    /// Every fix, pressure sample, event and motion sample is in exactly one part (a batch that
    /// spans a cut is split at it), so the parts' fixes, in order, are the original's. The
    /// upload state of `id` is reset to pending (its size check failed before anything was sent).
    ///
    /// - Returns: nil when no cut keeps every part within the limit with two fixes each (a limit
    ///   smaller than a few seconds of data); the measurement is then left as it is.
    public func cutIntoParts(_ id: Int64, limit: Int64) throws(StoreError) -> [Int64]? {
        try write { db -> [Int64]? in
            guard let status = try String.fetchOne(db, sql: "SELECT status FROM measurement WHERE id = ?", arguments: [id]),
                status == MeasurementState.finished.rawValue
            else { return [id] }
            guard let plan = try Self.partPlan(db, id, limit: limit) else { return nil }
            guard !plan.cuts.isEmpty else { return [id] }
            // The parts' ids first, in order; then the cuts from the last back, so that every row
            // moves once (cut forward, the tail would move again at every cut).
            var ids = [id]
            for _ in plan.cuts {
                try db.execute(sql: "INSERT INTO measurement (status, modality, start_ts, sources) VALUES ('finished', '', 0, '')")
                ids.append(db.lastInsertedRowID)
            }
            for (index, cut) in plan.cuts.enumerated().reversed() { try Self.cut(db, id, at: cut, into: ids[index + 1]) }
            // A part cut again (the limit lowered once more) is the original of its own parts.
            for (index, part) in ids.enumerated() {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO measurement_part (measurement_id, original_id, number, count) VALUES (?, ?, ?, ?)",
                    arguments: [part, id, index + 1, ids.count])
            }
            try db.execute(
                sql: """
                    UPDATE upload SET status = 'pending', reason = NULL, session_url = NULL, total_length = NULL,
                        file_sha256 = NULL, acknowledged = 0 WHERE measurement_id = ?
                    """, arguments: [id])
            return ids
        }
    }

    private static func partRow(_ db: Database, _ id: Int64) throws -> MeasurementPart? {
        try Row.fetchOne(db, sql: "SELECT original_id, number, count FROM measurement_part WHERE measurement_id = ?", arguments: [id])
            .map { MeasurementPart(original: $0["original_id"], number: $0["number"], count: $0["count"]) }
    }

    /// The plan for measurement `id`: every fix, event and batch with its bytes, cut at fixes
    /// strictly inside a track that share their time with no event.
    static func partPlan(_ db: Database, _ id: Int64, limit: Int64) throws -> PartPlan? {
        var items: [PartPlan.Item] = []
        var fixTimes: [Int64] = []
        var candidates: [Int64] = []
        let tracks = try TrackRow.fetchAll(
            db, sql: "SELECT number, start_ts, end_ts FROM track WHERE measurement_id = ?", arguments: [id]
        ).map(\.track)
        let spans = Dictionary(tracks.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var eventTimes = Set<Int64>()
        for row in try Row.fetchAll(db, sql: "SELECT ts, length(value) AS length FROM event WHERE measurement_id = ?", arguments: [id]) {
            let time: Int64 = row["ts"]
            eventTimes.insert(time)
            items.append(.init(first: time, last: time, bytes: TransferSizeBound.event(valueBytes: row["length"] ?? 0)))
        }
        let fixes = try DirectQuery(db, sql: "SELECT ts, track FROM location WHERE measurement_id = ? ORDER BY id", arguments: [id])
        while try fixes.step() {
            let (time, track) = (fixes.int64(0), Int(fixes.int64(1)))
            fixTimes.append(time)
            items.append(.init(first: time, last: time, bytes: TransferSizeBound.perFix))
            if let span = spans[track], span.startTime < time, span.endTime.map({ time < $0 }) ?? true, !eventTimes.contains(time) {
                candidates.append(time)
            }
        }
        let batches = try DirectQuery(
            db, sql: "SELECT first_ts, last_ts, length(data) FROM sensor_batch WHERE measurement_id = ?", arguments: [id])
        while try batches.step() {
            items.append(
                .init(
                    first: batches.int64(0), last: batches.int64(1),
                    bytes: Int64(CyfaceBatchSummary.framedSize(bodyByteCount: Int(batches.int64(2))))))
        }
        return PartPlan(items: items, candidates: candidates, fixTimes: fixTimes, limit: limit)
    }

    /// Moves what measurement `id` holds from `time` on into measurement `part` (a row made for it).
    private static func cut(_ db: Database, _ id: Int64, at time: Int64, into part: Int64) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM measurement WHERE id = ?", arguments: [id]) else {
            throw StoreError.measurementNotFound(id)
        }
        let tracks = try TrackRow.fetchAll(
            db, sql: "SELECT number, start_ts, end_ts FROM track WHERE measurement_id = ? ORDER BY number", arguments: [id]
        ).map(\.track)
        // The track the cut falls into (PartPlan's candidates are inside one).
        let at = tracks.last { $0.startTime < time }?.number ?? 1
        let events = try EventRow.fetchAll(
            db, sql: "SELECT ts, type, value FROM event WHERE measurement_id = ? ORDER BY ts, id", arguments: [id]
        ).compactMap(\.event)
        let modality = Modality.spelling(at: time, events: events, initial: row[MeasurementRow.Columns.modality])
        try db.execute(
            sql: """
                UPDATE measurement SET modality = ?, start_ts = ?, end_ts = ?, track_count = ?, sources = ?,
                    clock_correction_ms = ? WHERE id = ?
                """,
            arguments: [
                modality, time, row[MeasurementRow.Columns.endTime] as Int64?, tracks.count - at + 1,
                row[MeasurementRow.Columns.sources] as String, row["clock_correction_ms"] as Int64?, part,
            ])
        try db.execute(sql: "UPDATE measurement SET end_ts = ?, track_count = ? WHERE id = ?", arguments: [time, at, id])
        for track in tracks where track.number >= at {
            try db.execute(
                sql: "INSERT INTO track (measurement_id, number, start_ts, end_ts) VALUES (?, ?, ?, ?)",
                arguments: [part, track.number - at + 1, max(track.startTime, time), track.endTime])
        }
        try db.execute(sql: "DELETE FROM track WHERE measurement_id = ? AND number > ?", arguments: [id, at])
        try db.execute(sql: "UPDATE track SET end_ts = ? WHERE measurement_id = ? AND number = ?", arguments: [time, id, at])
        for table in ["location", "pressure"] {
            try db.execute(
                sql: "UPDATE \(table) SET measurement_id = ?, track = max(1, track - ?) WHERE measurement_id = ? AND ts >= ?",
                arguments: [part, at - 1, id, time])
        }
        try cutBatches(db, id, at: time, into: part, shift: at - 1)
        // The events from the cut on follow the new part's START and modality, in their order.
        let moved = events.filter { $0.timestamp >= time }
        try db.execute(sql: "DELETE FROM event WHERE measurement_id = ? AND ts >= ?", arguments: [id, time])
        let stop = Event(timestamp: time, type: .lifecycleStop)
        let begin = [Event(timestamp: time, type: .lifecycleStart), Event(timestamp: time, type: .modalityTypeChange, value: modality)]
        for (measurement, event) in [(id, stop)] + (begin + moved).map({ (part, $0) }) {
            try db.execute(
                sql: "INSERT INTO event (measurement_id, ts, type, value) VALUES (?, ?, ?, ?)",
                arguments: [measurement, event.timestamp, event.type.rawValue, event.value])
        }
    }

    /// Moves the batches of measurement `id` from `time` on to `part`. A batch that spans the cut
    /// is split: its later samples stay in its row (which keeps its place among the part's batches
    /// of that sensor), its earlier ones go into a new row, the last of `id`'s for that sensor.
    private static func cutBatches(_ db: Database, _ id: Int64, at time: Int64, into part: Int64, shift: Int) throws {
        let spanning = try Row.fetchAll(
            db, sql: "SELECT id, track, sensor, data FROM sensor_batch WHERE measurement_id = ? AND first_ts < ? AND last_ts >= ?",
            arguments: [id, time, time])
        try db.execute(
            sql: "UPDATE sensor_batch SET measurement_id = ?, track = max(1, track - ?) WHERE measurement_id = ? AND first_ts >= ?",
            arguments: [part, shift, id, time])
        for row in spanning {
            guard let sensor = MotionSensor(rawValue: row["sensor"]) else { continue }
            let data: Data = row["data"]
            let samples = try CyfaceBatch.decode([UInt8](data), sensor: sensor)
            let (before, after) = (samples.filter { $0.timestamp < time }, samples.filter { $0.timestamp >= time })
            let track: Int = row["track"]
            guard !after.isEmpty else { continue }
            if !before.isEmpty {
                let body = Data(try CyfaceBatch.encode(before, sensor: sensor))
                try db.execute(
                    sql: insertSensorBatch,
                    arguments: [id, track, sensor.rawValue, before.map(\.timestamp).min(), before.map(\.timestamp).max(), before.count, body])
            }
            let body = Data(try CyfaceBatch.encode(after, sensor: sensor))
            try db.execute(
                sql: """
                    UPDATE sensor_batch SET measurement_id = ?, track = ?, first_ts = ?, last_ts = ?, count = ?, data = ?
                    WHERE id = ?
                    """,
                arguments: [
                    part, max(1, track - shift), after.map(\.timestamp).min(), after.map(\.timestamp).max(), after.count, body,
                    row["id"] as Int64,
                ])
        }
    }
}
