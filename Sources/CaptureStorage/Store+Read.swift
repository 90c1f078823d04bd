public import CaptureCore
public import CaptureTransfer
import Foundation
import GRDB

// The readers of what the commit path wrote: measurements, tracks, events, counts, fixes,
// pressure and batches. Each read is one short transaction (``Store``), the streaming readers
// one per chunk.
extension Store {
    /// The installation's identity: a random UUID created with the store, never changed.
    public func deviceID() throws(StoreError) -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT device_id FROM device WHERE id = 1") ?? "" }
    }

    /// The open (capturing or paused) measurement, if any.
    public func openMeasurement() throws(StoreError) -> MeasurementRecord? {
        try read { db in
            try MeasurementRow.fetchOne(db, sql: "\(MeasurementRow.select) WHERE status != 'finished'")
                .map { try $0.record(path: path) }
        }
    }

    /// One measurement, or ``StoreError/measurementNotFound(_:)``.
    public func measurement(_ id: Int64) throws(StoreError) -> MeasurementRecord {
        let record = try read { db in
            try MeasurementRow.fetchOne(db, sql: "\(MeasurementRow.select) WHERE id = ?", arguments: [id])
                .map { try $0.record(path: path) }
        }
        guard let record else { throw .measurementNotFound(id) }
        return record
    }

    /// All measurements, oldest first.
    public func measurements() throws(StoreError) -> [MeasurementRecord] {
        try read { db in
            try MeasurementRow.fetchAll(db, sql: "\(MeasurementRow.select) ORDER BY id").map { try $0.record(path: path) }
        }
    }

    /// The tracks of a measurement, in order.
    public func tracks(of id: Int64) throws(StoreError) -> [TrackRecord] {
        try read { db in
            try TrackRow.fetchAll(
                db, sql: "SELECT number, start_ts, end_ts FROM track WHERE measurement_id = ? ORDER BY number",
                arguments: [id]
            ).map(\.track)
        }
    }

    /// The events of a measurement, in the order they were recorded.
    public func events(of id: Int64) throws(StoreError) -> [Event] {
        try read { db in
            try EventRow.fetchAll(
                db, sql: "SELECT ts, type, value FROM event WHERE measurement_id = ? ORDER BY id", arguments: [id]
            ).compactMap(\.event)
        }
    }

    /// Sample counts of a measurement, or of one of its tracks.
    public func counts(of id: Int64, track: Int? = nil) throws(StoreError) -> SampleCounts {
        try read { db in
            let filter = track == nil ? "" : " AND track = ?"
            var arguments: StatementArguments = [id]
            if let track { _ = arguments.append(contentsOf: [track]) }
            var counts = SampleCounts()
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT sensor, SUM(count) AS samples FROM sensor_batch WHERE measurement_id = ?\(filter)
                    GROUP BY sensor
                    """,
                arguments: arguments)
            {
                if let sensor = MotionSensor(rawValue: row["sensor"]) { counts[sensor] = row["samples"] }
            }
            counts.locations =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM location WHERE measurement_id = ?\(filter)", arguments: arguments)
                ?? 0
            counts.pressure =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pressure WHERE measurement_id = ?\(filter)", arguments: arguments)
                ?? 0
            return counts
        }
    }

    /// The fixes of a measurement (or of one track), in time order.
    public func fixes(of id: Int64, track: Int? = nil) throws(StoreError) -> [Fix] {
        var fixes: [Fix] = []
        try forEachFix(of: id, track: track) { fixes.append($0) }
        return fixes
    }

    /// Calls `body` with each fix of a measurement (or of one track), in time order, without
    /// loading them all; read in chunks (``forEachRow(from:fetch:key:_:)``).
    public func forEachFix(of id: Int64, track: Int? = nil, _ body: (Fix) throws -> Void) throws(StoreError) {
        let filter = track == nil ? "" : " AND track = ?"
        try forEachRow(
            from: (ts: Int64.min, id: Int64.min),
            fetch: { db, after in
                var arguments: StatementArguments = [id]
                if let track { _ = arguments.append(contentsOf: [track]) }
                _ = arguments.append(contentsOf: [after.ts, after.ts, after.id, Self.chunkRows.fixes])
                return try LocationRow.fetchAll(
                    db,
                    sql: """
                        SELECT ts, lat, lon, altitude, horizontal_accuracy, vertical_accuracy, speed, course,
                            satellites, hdop, vdop, pdop, fix_mode, id
                        FROM location WHERE measurement_id = ?\(filter) AND (ts > ? OR (ts = ? AND id > ?))
                        ORDER BY ts, id LIMIT ?
                        """, arguments: arguments)
            },
            key: { row in (row.fix.timestamp, row.id) }
        ) { row in
            try body(row.fix)
        }
    }

    /// Calls `body` with each row `fetch` gives, chunk after chunk: `fetch` reads the rows after
    /// a key (at most a chunk of them, in key order), `key` gives a row's. Each chunk is read in
    /// a transaction of its own that ends before `body` sees it: a consumer that stalls (an
    /// export piped into a pager) holds no lock on the store, which would keep the recorder's
    /// commits out (``Store``). Rows committed meanwhile after the last one read come too.
    private func forEachRow<Record, Key>(
        from start: Key, fetch: (Database, Key) throws -> [Record], key: (Record) -> Key,
        _ body: (Record) throws -> Void
    ) throws(StoreError) {
        var after = start
        while true {
            let chunk = try read { db in try fetch(db, after) }
            guard let last = chunk.last else { return }
            after = key(last)
            do {
                for row in chunk { try body(row) }
            } catch {
                throw Self.map(error, path: path)
            }
        }
    }

    /// Rows read in one transaction by the chunked readers: a few hundred KB of batches; fixes
    /// more at a time, as each chunk of them is sorted out of all the measurement's (the table
    /// is kept in arrival order), and a day has 86,400.
    static let chunkRows = (fixes: 4096, batches: 512)

    /// The pressure samples of a measurement, in time order.
    public func pressures(of id: Int64) throws(StoreError) -> [PressureSample] {
        try read { db in
            try PressureRow.fetchAll(
                db, sql: "SELECT ts, hpa FROM pressure WHERE measurement_id = ? ORDER BY ts, id", arguments: [id]
            ).map(\.sample)
        }
    }

    /// Calls `body` with each stored batch of one sensor, in storage order, without loading them
    /// all; read in chunks (``forEachRow(from:fetch:key:_:)``).
    public func forEachBatch(
        of id: Int64, sensor: MotionSensor, _ body: (StoredBatch) throws -> Void
    ) throws(StoreError) {
        try forEachRow(
            from: Int64.min,
            fetch: { db, after in
                try BatchRow.fetchAll(
                    db,
                    sql: """
                        SELECT track, first_ts, last_ts, count, data, id FROM sensor_batch
                        WHERE measurement_id = ? AND sensor = ? AND id > ? ORDER BY id LIMIT ?
                        """, arguments: [id, sensor.rawValue, after, Self.chunkRows.batches])
            },
            key: { row in row.id }
        ) { row in
            try body(row.batch(of: sensor))
        }
    }

    /// Decodes a stored batch into SI samples.
    public static func samples(of batch: StoredBatch) throws(StoreError) -> [MotionSample] {
        do {
            return try CyfaceBatch.decode(batch.data, sensor: batch.sensor)
        } catch {
            throw .corrupt(path: "sensor batch", reason: "\(error)")
        }
    }

    /// The latest timestamp of anything committed for a measurement (samples or events).
    public func lastTimestamp(of id: Int64) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(t) FROM (
                        SELECT MAX(ts) AS t FROM event WHERE measurement_id = ?1
                        UNION ALL SELECT MAX(ts) FROM location WHERE measurement_id = ?1
                        UNION ALL SELECT MAX(ts) FROM pressure WHERE measurement_id = ?1
                        UNION ALL SELECT MAX(last_ts) FROM sensor_batch WHERE measurement_id = ?1)
                    """, arguments: [id])
        }
    }

    /// The modality in force at the end of the measurement (its last MODALITY_TYPE_CHANGE).
    public func currentModality(of id: Int64) throws(StoreError) -> Modality? {
        try read { db in
            try String.fetchOne(
                db,
                sql: "SELECT value FROM event WHERE measurement_id = ? AND type = ? ORDER BY id DESC LIMIT 1",
                arguments: [id, EventType.modalityTypeChange.rawValue]
            ).flatMap(Modality.init(parsing:))
        }
    }
}
