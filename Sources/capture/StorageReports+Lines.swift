import CaptureCore
import CaptureStorage

extension PruneReport {
    /// What `capture prune` prints: a line per measurement removed (or that would be), then the
    /// database's size before and after.
    var lines: [String] {
        let verb = dryRun ? "would remove" : "removed"
        return removed.map { "measurement \($0.measurement): \(verb) (\($0.reason))" } + [
            "prune: \(removed.count) \(verb); database \(ByteCount.text(bytesBefore)) → \(ByteCount.text(bytesAfter))"
                + (overBudget ? "; still over retention.max_store_size: nothing more may go" : "")
        ]
    }
}

extension AttachmentRecord.Report {
    /// What `capture attach` prints.
    var line: String {
        "attached \(name) to measurement \(measurement) as attachment \(attachment) (\(format.rawValue), "
            + "\(ByteCount.text(Int64(bytes)))); it goes to the collector after the measurement"
    }
}

extension PrivacyCheck {
    /// What `capture status` says on standard error when anything is exposed.
    static func warning(_ exposed: [Exposure]) -> String? {
        exposed.isEmpty ? nil : "warning: other users can read \(paths(exposed)); \(remedy(exposed))"
    }
}
