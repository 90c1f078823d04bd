public import CaptureCore
import GRDB

// The recorder's commit path: a measurement begins, its flushes are committed, each in one
// transaction (or several flushes in one, for a replay).
extension Store {
    /// Creates a measurement and commits the flush that starts it (LIFECYCLE_START and the
    /// initial MODALITY_TYPE_CHANGE), in one transaction. Returns the new measurement id.
    ///
    /// Throws ``StoreError/alreadyOpen(_:)`` if another measurement is open.
    /// `counting`: a ride count to add in the same transaction (a ride begun by motion), so that
    /// a begin tried again after a failure never counts twice.
    public func begin(_ flush: Flush, sources: String, counting: RideCount? = nil, patience: Double? = nil) throws(StoreError) -> Int64 {
        try begin(EncodedFlush(flush), sources: sources, counting: counting, patience: patience)
    }

    /// ``begin(_:sources:counting:)-(Flush,_,_)`` for a flush encoded beforehand.
    /// `patience`: how long to wait for another process's transaction, seconds (by default
    /// SQLite's busy timeout).
    public func begin(
        _ encoded: EncodedFlush, sources: String, counting: RideCount? = nil, patience: Double? = nil
    ) throws(StoreError) -> Int64 {
        let flush = encoded.flush
        guard let start = flush.events.first(where: { $0.type == .lifecycleStart }),
            let modality = flush.modality
        else { throw .database("a measurement must begin with LIFECYCLE_START") }
        return try write(patience: patience) { db in
            try Self.insertMeasurement(nil, flush: flush, start: start.timestamp, modality: modality, sources: sources, in: db)
            let id = db.lastInsertedRowID
            try Self.apply(encoded, to: id, in: db)
            if let counting { try Self.count([counting], in: db) }
            return id
        }
    }

    /// Inserts a measurement row (under `id`, or the next one when `nil`) inside the caller's
    /// transaction; throws ``StoreError/alreadyOpen(_:)`` if another measurement is open.
    static func insertMeasurement(
        _ id: Int64?, flush: Flush, start: Int64, modality: Modality, sources: String, in db: Database
    ) throws {
        if let open = try Int64.fetchOne(db, sql: "SELECT id FROM measurement WHERE status != 'finished'") {
            throw StoreError.alreadyOpen(open)
        }
        try db.execute(
            sql: "INSERT INTO measurement (id, status, modality, start_ts, track_count, sources) VALUES (?, ?, ?, ?, 0, ?)",
            arguments: [id, flush.state.name, modality.rawValue, start, sources])
    }

    /// Commits one flush of an open measurement in one transaction. An empty flush writes nothing.
    public func commit(_ flush: Flush, to measurement: Int64) throws(StoreError) {
        guard !flush.isEmpty else { return }
        try commit(EncodedFlush(flush), to: measurement)
    }

    /// ``commit(_:to:)-(Flush,_)`` for a flush encoded beforehand.
    public func commit(_ encoded: EncodedFlush, to measurement: Int64) throws(StoreError) {
        try commit([encoded], to: measurement)
    }

    /// Commits several flushes of a measurement, in order, in one transaction: a replay's,
    /// which keeps nothing of a measurement it could not finish, so its flushes need not be
    /// durable one by one.
    public func commit(_ flushes: [EncodedFlush], to measurement: Int64) throws(StoreError) {
        guard flushes.contains(where: { !$0.isEmpty }) else { return }
        try write { db in
            for flush in flushes where !flush.isEmpty { try Self.apply(flush, to: measurement, in: db) }
        }
    }

    /// Writes one flush of measurement `id` inside the caller's transaction.
    ///
    /// The hot path of a live recorder and of a replay: the samples' rows are bound through
    /// SQLite's C API (``DirectStatement``), by position, rather than as GRDB arguments, which a
    /// benchmark measured costing more than SQLite's own work (BENCHMARKS.md, "The commit path's
    /// inserts"). Keep it so; the events, a few per measurement, go through GRDB.
    static func apply(_ encoded: EncodedFlush, to id: Int64, in db: Database) throws {
        let flush = encoded.flush
        if !encoded.batches.isEmpty {
            var insert = DirectStatement(try db.cachedStatement(sql: insertSensorBatch))
            for batch in encoded.batches {
                insert.bind(id)
                insert.bind(flush.track)
                insert.bind(batch.sensor.rawValue)
                insert.bind(batch.firstTimestamp)
                insert.bind(batch.lastTimestamp)
                insert.bind(batch.count)
                insert.bind(batch.data)
                try insert.run()
            }
        }
        try insertNumbered(flush.fixes, into: "location", sql: insertLocation, measurement: id, track: flush.track, in: db) { insert, fix in
            insert.bind(fix.timestamp)
            insert.bind(fix.latitude)
            insert.bind(fix.longitude)
            insert.bind(fix.altitude)
            insert.bind(fix.horizontalAccuracy)
            insert.bind(fix.verticalAccuracy)
            insert.bind(fix.speed)
            insert.bind(fix.course)
            insert.bind(fix.satellites.map(Double.init))
            insert.bind(fix.hdop)
            insert.bind(fix.vdop)
            insert.bind(fix.pdop)
            insert.bind(fix.mode.map { Double($0.rawValue) })
        }
        try insertNumbered(
            flush.pressures, into: "pressure", sql: "INSERT INTO pressure (measurement_id, id, track, ts, hpa) VALUES (?, ?, ?, ?, ?)",
            measurement: id, track: flush.track, in: db
        ) { insert, pressure in
            insert.bind(pressure.timestamp)
            insert.bind(pressure.hectopascals)
        }
        for event in flush.events {
            try db.execute(
                sql: "INSERT INTO event (measurement_id, ts, type, value) VALUES (?, ?, ?, ?)",
                arguments: [id, event.timestamp, event.type.rawValue, event.value])
            switch event.type {
            case .lifecycleStart, .lifecycleResume:
                try db.execute(
                    sql: """
                        INSERT INTO track (measurement_id, number, start_ts)
                        VALUES (?, (SELECT COALESCE(MAX(number), 0) + 1 FROM track WHERE measurement_id = ?), ?)
                        """,
                    arguments: [id, id, event.timestamp])
            case .lifecyclePause, .lifecycleStop:
                try db.execute(
                    sql: "UPDATE track SET end_ts = ? WHERE measurement_id = ? AND end_ts IS NULL",
                    arguments: [event.timestamp, id])
                if event.type == .lifecycleStop {
                    try db.execute(sql: "UPDATE measurement SET end_ts = ? WHERE id = ?", arguments: [event.timestamp, id])
                }
            case .modalityTypeChange:
                break
            }
        }
        if !flush.events.isEmpty {
            try db.execute(
                sql: "UPDATE measurement SET status = ?, track_count = ? WHERE id = ?",
                arguments: [flush.state.name, flush.state.track, id])
        }
    }

    /// The largest batch stored in one row; the Android SDK's limit per message.
    public static let maximumBatch = EncodedFlush.maximumBatch

    /// One `sensor_batch` row, for the commit path and import alike; arguments in column order.
    static let insertSensorBatch = """
        INSERT INTO sensor_batch (measurement_id, track, sensor, first_ts, last_ts, count, data)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    static let insertLocation = """
        INSERT INTO location (measurement_id, id, track, ts, lat, lon, altitude, horizontal_accuracy,
            vertical_accuracy, speed, course, satellites, hdop, vdop, pdop, fix_mode)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Inserts `rows` into `table` (`location` or `pressure`) with `sql`, numbering them on from
    /// the measurement's last row: each row binds the measurement, its number and `track`, then
    /// `bind` adds its own columns.
    private static func insertNumbered<Row>(
        _ rows: [Row], into table: String, sql: String, measurement id: Int64, track: Int, in db: Database,
        bind: (inout DirectStatement, Row) -> Void
    ) throws {
        guard !rows.isEmpty else { return }
        var number = try lastRow(of: table, measurement: id, in: db)
        var insert = DirectStatement(try db.cachedStatement(sql: sql))
        for row in rows {
            number += 1
            insert.bind(id)
            insert.bind(number)
            insert.bind(track)
            bind(&insert, row)
            try insert.run()
        }
    }

    /// The last row number of a measurement in `location` or `pressure` (numbered from 1 within
    /// the measurement), 0 if it has none.
    static func lastRow(of table: String, measurement: Int64, in db: Database) throws -> Int64 {
        var query = DirectStatement(try db.cachedStatement(sql: "SELECT MAX(id) FROM \(table) WHERE measurement_id = ?"))
        query.bind(measurement)
        return try query.int64() ?? 0
    }


    /// Replaces the sources a measurement records (``MeasurementRecord/sources``, one spec a
    /// line), which `capture resume` restarts its recorder with: a recovered trace source stores
    /// where its playback now stands.
    public func updateSources(_ sources: String, of id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE measurement SET sources = ? WHERE id = ?", arguments: [sources, id])
        }
    }
}
