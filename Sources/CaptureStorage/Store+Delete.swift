import CaptureCore
import GRDB

extension Store {
    /// Deletes a measurement and everything recorded for it (one transaction), then its files in
    /// `directory` (cached transfer file, sidecar, attachments) and any an interrupted removal
    /// left, with their directories synced (``removeLeftovers(in:)``), so that neither the cache
    /// nor the attachments outlive the data, a power cut included. Removing the files is best
    /// effort: one that cannot be removed is only disk space (ids are never reused), and the next
    /// prune tries again.
    ///
    /// Whether a recorder still holds the measurement is for the caller to check first.
    ///
    /// - Parameter directory: the data directory the store was opened in.
    /// - Throws: ``StoreError/measurementNotFound(_:)`` and other ``StoreError``s.
    public func deleteMeasurement(_ id: Int64, directory: String) throws(StoreError) {
        try delete(id)
        _ = try? removeLeftovers(in: directory)
    }

    /// `measurement 3 (BICYCLE, 2026-11-27 10:44:31Z, 540 fixes)`: what `capture delete` asks
    /// about before it deletes.
    public func brief(_ id: Int64) throws(StoreError) -> String {
        let record = try measurement(id)
        return "measurement \(id) (\(record.modality), \(TextFormat.time(record.startTime)), \(try counts(of: id).locations) fixes)"
    }

    /// Deletes a measurement and everything recorded for it, in one transaction.
    public func delete(_ id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM measurement WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw StoreError.measurementNotFound(id) }
        }
    }
}
