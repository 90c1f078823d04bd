import CaptureStorage
import CaptureUpload

/// Where `capture upload` gets the bytes of a measurement.
enum TransferFiles {
    /// The transfer file of a measurement: `override` (benchmarks) hashed here, otherwise the
    /// store's cached transfer file.
    static func file(for id: Int64, store: Store, dataDirectory: String, override: String?) throws -> UploadFile {
        if let override { return try UploadFile(hashing: override) }
        throw CLIError(.failure, "transfer files are not available in this build (needs the export branch)")
    }
}
