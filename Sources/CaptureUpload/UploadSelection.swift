public import CaptureStorage

/// Which measurements an ``UploadRun`` tries, always in ascending id order (oldest first).
public enum UploadSelection: Sendable, Equatable {
    /// Every finished measurement that has not reached the collector: pending, interrupted or
    /// failed, and with `includingSkipped` also those marked skipped (`capture upload [--all]`).
    case waiting(includingSkipped: Bool)
    /// Only interrupted uploads (a session was open when the uploader stopped): those among
    /// `ids`, or all of them if `ids` is nil (`capture upload --resume [ID…]`).
    case interrupted(among: [Int64]?)
    /// Exactly these measurements, whatever their state: one already uploaded is reported as
    /// such, an unknown id as not found (`capture upload ID…`).
    case measurements([Int64])

    /// The ids this selection stands for in `store` now, in the order they are tried.
    public func measurements(in store: Store) throws(StoreError) -> [Int64] {
        let uploads = try store.uploads()
        func status(_ id: Int64) -> UploadRecord.Status { uploads[id]?.status ?? .pending }
        switch self {
        case .measurements(let ids):
            return ids.sorted()
        case .interrupted(let ids?):
            return ids.sorted().filter { status($0) == .uploading }
        case .interrupted(nil):
            // Attachments count: an uploaded measurement whose attachment was cut off is resumed too.
            let cut = try store.measurementsWithAttachments(in: [.uploading])
            return try finished(in: store).filter { status($0) == .uploading || (status($0) == .uploaded && cut.contains($0)) }
        case .waiting(let includingSkipped):
            let attachmentsWaiting = try store.measurementsWithAttachments(in: [.pending, .uploading, .failed])
            return try finished(in: store).filter { id in
                switch status(id) {
                case .pending, .uploading, .failed: true
                case .skipped: includingSkipped
                case .uploaded: attachmentsWaiting.contains(id)
                }
            }
        }
    }

    /// What an upload without `--resume` would try now (``waiting(includingSkipped:)``), counted
    /// by upload status; empty when none waits: for a `--resume` that found no interrupted
    /// upload, to say what waits all the same (a failed measurement is not resumed but uploaded anew).
    public static func waitingCounts(in store: Store) throws(StoreError) -> [UploadRecord.Status: Int] {
        let uploads = try store.uploads()
        var counts: [UploadRecord.Status: Int] = [:]
        for id in try UploadSelection.waiting(includingSkipped: false).measurements(in: store) {
            counts[uploads[id]?.status ?? .pending, default: 0] += 1
        }
        return counts
    }

    private func finished(in store: Store) throws(StoreError) -> [Int64] {
        try store.measurements().filter { !$0.isOpen }.map(\.id)
    }
}
