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
}
