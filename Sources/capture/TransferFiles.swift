import CaptureStorage
import CaptureUpload

/// Where `capture upload` gets the bytes of a measurement.
enum TransferFiles {
    /// The transfer file of a measurement: the store's cached Cyface v3 file (made on first
    /// use, kept in the data directory), or `override` hashed here (transport benchmarks).
    static func file(for id: Int64, store: Store, dataDirectory: String, override: String?) throws -> UploadFile {
        if let override { return try UploadFile(hashing: override) }
        let file = try store.transferFile(for: id, directory: dataDirectory)
        return UploadFile(path: file.path, size: file.size, sha256: file.sha256)
    }
}
