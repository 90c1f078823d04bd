import CaptureCore
import CaptureTransfer
import Foundation
import GRDB

/// One clock per measurement (``GNSSClock``): what the store keeps of it.
extension Store {
    /// Puts what measurement `id` holds on the host's clock onto GNSS time, by adding
    /// `correction` (milliseconds, GNSS − host): its start and end, its tracks, events and
    /// pressure readings and, with `motion`, its motion samples (not when they came from the
    /// receiver itself, on GNSS time already). Fixes are on GNSS time and stay. The correction is
    /// recorded with it, in the same transaction: a crash leaves either all of it or none.
    public func applyClockCorrection(_ correction: Int64, to id: Int64, motion: Bool) throws(StoreError) {
        try write { db in try Self.applyClockCorrection(correction, to: id, motion: motion, in: db) }
    }

    /// ``applyClockCorrection(_:to:motion:)`` inside the caller's transaction (a flush-log step).
    static func applyClockCorrection(_ correction: Int64, to id: Int64, motion: Bool, in db: Database) throws {
        for sql in [
            "UPDATE measurement SET start_ts = start_ts + ?, end_ts = end_ts + ?, clock_correction_ms = ? WHERE id = ?",
            "UPDATE track SET start_ts = start_ts + ?, end_ts = end_ts + ? WHERE measurement_id = ?",
        ] {
            let shifts = Array(repeating: correction, count: sql.components(separatedBy: "?").count - 2)
            try db.execute(sql: sql, arguments: StatementArguments(shifts + [id]))
        }
        for table in ["event", "pressure"] {
            try db.execute(sql: "UPDATE \(table) SET ts = ts + ? WHERE measurement_id = ?", arguments: [correction, id])
        }
        guard motion else { return }
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, sensor, data FROM sensor_batch WHERE measurement_id = ?", arguments: [id])
        for row in rows {
            guard let sensor = MotionSensor(rawValue: row["sensor"]) else { continue }
            let data: Data = row["data"]
            var samples = try CyfaceBatch.decode([UInt8](data), sensor: sensor)
            for index in samples.indices { samples[index].timestamp += correction }
            guard let first = samples.first, let last = samples.last else { continue }
            try db.execute(
                sql: "UPDATE sensor_batch SET first_ts = ?, last_ts = ?, data = ? WHERE id = ?",
                arguments: [first.timestamp, last.timestamp, Data(try CyfaceBatch.encode(samples[...], sensor: sensor)), row["id"] as Int64])
        }
    }

    /// Records a later correction in force (the host clock stepped); what is stored stays.
    public func recordClockCorrection(_ correction: Int64, of id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE measurement SET clock_correction_ms = ? WHERE id = ?", arguments: [correction, id])
        }
    }

    /// The correction measurement `id`'s host-clock times were moved by, or `nil` if none.
    public func clockCorrection(of id: Int64) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT clock_correction_ms FROM measurement WHERE id = ?", arguments: [id])
        }
    }
}
