import GRDB

extension Store {
    /// Deletes a measurement and everything recorded for it (one transaction), then its cached
    /// transfer file in `directory`, so the cache does not outlive the data.
    ///
    /// Whether a recorder still holds the measurement is for the caller to check first.
    ///
    /// - Parameter directory: the data directory the store was opened in.
    /// - Throws: ``StoreError/measurementNotFound(_:)`` and other ``StoreError``s.
    public func deleteMeasurement(_ id: Int64, directory: String) throws(StoreError) {
        try delete(id)
        Self.removeTransferFile(for: id, directory: directory)
    }

    /// Deletes a measurement and everything recorded for it, in one transaction.
    public func delete(_ id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM measurement WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw StoreError.measurementNotFound(id) }
        }
    }
}
