public import CaptureCore
import GRDB

// The steps a flush-log record carries besides its flush (FlushLog.Step), and the measurement
// ids the recorder reserves so that a ride can begin in the log while another process holds
// the database.
extension Store {
    /// Creates measurement `id` with the flush that starts it (LIFECYCLE_START and its
    /// modality) and, with `journal`, its recorder log as an attachment, inside the caller's
    /// transaction; the id is no longer reserved.
    static func begin(_ id: Int64, with encoded: EncodedFlush, sources: String, journal: String?, in db: Database) throws {
        let flush = encoded.flush
        guard let start = flush.events.first(where: { $0.type == .lifecycleStart }), let modality = flush.modality else {
            throw StoreError.database("a measurement must begin with LIFECYCLE_START")
        }
        try insertMeasurement(id, flush: flush, start: start.timestamp, modality: modality, sources: sources, in: db)
        try apply(encoded, to: id, in: db)
        if let journal {
            try db.execute(
                sql: "INSERT INTO attachment (measurement_id, format, name, added_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: [id, AttachmentRecord.Format.jsonl.rawValue, journal, wallClock()])
        }
        try db.execute(
            sql: "UPDATE flush_log SET reserved_next = ? WHERE id = 1 AND reserved_next <= ?", arguments: [id + 1, id])
    }

    /// Applies one step of a record of measurement `id` (`stored`: whether it is in the
    /// database) inside the caller's transaction. A measurement deleted meanwhile takes nothing,
    /// but its ride is still counted.
    static func apply(_ step: FlushLog.Step, to id: Int64, stored: Bool, in db: Database) throws {
        switch step {
        case .begin: break
        case .countRide(let kind):
            try db.execute(
                sql: "INSERT INTO ride_count (kind, count) VALUES (?, 1) ON CONFLICT (kind) DO UPDATE SET count = count + 1",
                arguments: [kind.rawValue])
        case .discard:
            if stored { try db.execute(sql: "DELETE FROM measurement WHERE id = ?", arguments: [id]) }
        case .moveToGNSSTime(let correction, let motion):
            if stored { try applyClockCorrection(correction, to: id, motion: motion, in: db) }
        case .recordClockCorrection(let correction):
            if stored {
                try db.execute(sql: "UPDATE measurement SET clock_correction_ms = ? WHERE id = ?", arguments: [correction, id])
            }
        }
    }

    /// Reserves measurement ids for the recorder, so that at least `count` are reserved (fewer
    /// when another process took the ids after them), and returns all that are: ids no other
    /// process will be given (they are counted as used in `sqlite_sequence`, as `AUTOINCREMENT`
    /// does) and that a ride begun while another process holds the database takes at once, in
    /// the flush log (``FlushLog/Step/begin(sources:journal:)``). Those not taken stay reserved
    /// across a power cut, for the next recorder: a cut leaves no gap in the ids.
    ///
    /// - Parameter patience: how long to wait for another process's transaction, seconds.
    public func reserveMeasurementIDs(keeping count: Int, patience: Double? = nil) throws(StoreError) -> [Int64] {
        try write(patience: patience) { db in
            let row = try Row.fetchOne(db, sql: "SELECT reserved_next, reserved_last FROM flush_log WHERE id = 1")
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'measurement'")
            let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM measurement") ?? 0
            let highest = max(sequence ?? 0, newest)
            var next: Int64 = row?["reserved_next"] ?? highest + 1
            var last: Int64 = row?["reserved_last"] ?? highest
            // Ids only grow: a reservation below a measurement begun since (the store's insert,
            // when a ride found none reserved) is given up.
            if next > last || next < newest {
                next = highest + 1
                last = highest
            }
            // Only ids right after the last reserved: the reservation stays one range.
            if last == highest, last - next + 1 < count { last = next + Int64(count) - 1 }
            if sequence == nil {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('measurement', ?)", arguments: [last])
            } else if last > highest {
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = 'measurement'", arguments: [last])
            }
            try db.execute(
                sql: "UPDATE flush_log SET reserved_next = ?, reserved_last = ? WHERE id = 1", arguments: [next, last])
            return next <= last ? Array(next...last) : []
        }
    }

    /// Gives back the reserved ids no measurement took, when the recorder that reserved them
    /// ends with nothing waiting in the flush log (no `begin` step there holds one): the next
    /// measurement, whoever begins it, takes the first of them, so that ids do not jump over
    /// ids nobody used (1, 2, 5). Ids once given (a deleted measurement's) are never given again.
    public func releaseReservedMeasurementIDs(patience: Double? = nil) throws(StoreError) {
        try write(patience: patience) { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT reserved_next, reserved_last FROM flush_log WHERE id = 1"),
                let next = row["reserved_next"] as Int64?, let last = row["reserved_last"] as Int64?
            else { return }
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'measurement'")
            let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM measurement") ?? 0
            // Unused only while nothing was given beyond them (else the reservation was given up).
            if next <= last, next > newest, sequence == last {
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = 'measurement'", arguments: [next - 1])
            }
            try db.execute(sql: "UPDATE flush_log SET reserved_next = NULL, reserved_last = NULL WHERE id = 1")
        }
    }

    /// The ids reserved now, only read (``reserveMeasurementIDs(keeping:patience:)`` writes):
    /// what a recorder that starts while another process holds the database may begin rides
    /// under, those an earlier recorder reserved. Ids a `begin` step still waiting in the flush
    /// log takes are among them: the caller leaves those out.
    public func reservedMeasurementIDs() throws(StoreError) -> [Int64] {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT reserved_next, reserved_last FROM flush_log WHERE id = 1"),
                let next = row["reserved_next"] as Int64?, let last = row["reserved_last"] as Int64?
            else { return [] }
            let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM measurement") ?? 0
            // As reserveMeasurementIDs: a reservation below a measurement begun since is given up.
            return next <= last && next > newest ? Array(next...last) : []
        }
    }
}
