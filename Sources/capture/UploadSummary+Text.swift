import CaptureStorage

extension UploadRecord {
    /// A short human form: `pending`, `uploading 12/40 B`, `failed (why)`.
    var summary: String {
        switch status {
        case .uploading:
            "uploading \(acknowledged)/\(totalLength ?? 0) B"
        case .skipped, .failed:
            status.rawValue + (reason.map { " (\($0))" } ?? "")
        default:
            status.rawValue
        }
    }
}

extension UploadSummary {
    /// `pending`, `uploading 12/40 B`, `failed (why)`: `show`'s upload line, `list`'s column.
    var text: String {
        var record = UploadRecord.pending(0)
        (record.status, record.reason, record.acknowledged, record.totalLength, record.uploadedAt) =
            (status, reason, acknowledged, totalLength, uploadedAt)
        return record.summary
    }
}

extension MeasurementPart {
    /// `part 2/3 of 7`.
    var text: String { "part \(number)/\(count) of \(original)" }
}
