import CaptureCore
import GRDB

extension Store {
    /// The sequence number of the last flush-log record in the database; 0 when none is.
    public func appliedLogSequence() throws(StoreError) -> UInt64 {
        try read { db in try Self.applied(db) }
    }

    private static func applied(_ db: Database) throws -> UInt64 {
        UInt64(try Int64.fetchOne(db, sql: "SELECT applied FROM flush_log WHERE id = 1") ?? 0)
    }

    /// Commits flush-log records, then `flush` (which may carry events) of `measurement`, in one
    /// transaction that also marks the records spent. Records already spent (another process
    /// applied them) and records of a measurement no longer stored are left out.
    func commit(
        records: [FlushLog.Record], then flush: EncodedFlush? = nil, to measurement: Int64 = 0,
        patience: Double? = nil
    ) throws(StoreError) {
        guard !records.isEmpty || !(flush?.isEmpty ?? true) else { return }
        try write(patience: patience) { db in
            if let last = records.last {
                let applied = try Self.applied(db)
                var exists: [Int64: Bool] = [:]
                for record in records where record.sequence > applied {
                    // A ride's measurement begun under its reserved id: created with its first flush.
                    var begun = false
                    if case .begin(let sources, let journal)? = record.steps.first {
                        try Self.begin(record.measurement, with: record.flush, sources: sources, journal: journal, in: db)
                        exists[record.measurement] = true
                        begun = true
                    }
                    let stored = try exists[record.measurement] ?? {
                        try Bool.fetchOne(db, sql: "SELECT 1 FROM measurement WHERE id = ?", arguments: [record.measurement]) ?? false
                    }()
                    exists[record.measurement] = stored
                    if stored, !begun { try Self.apply(record.flush, to: record.measurement, in: db) }
                    for step in record.steps {
                        if case .discard = step { exists[record.measurement] = false }
                        try Self.apply(step, to: record.measurement, stored: stored, in: db)
                    }
                }
                if last.sequence > applied {
                    try db.execute(sql: "UPDATE flush_log SET applied = ? WHERE id = 1", arguments: [Int64(last.sequence)])
                }
            }
            if let flush, !flush.isEmpty { try Self.apply(flush, to: measurement, in: db) }
        }
    }

    /// Commits as many of `records` as fit, in order, one transaction each; stops at the first
    /// that does not. Returns how many were committed. For a full store, where all of them at
    /// once did not fit.
    func commitWhatFits(_ records: [FlushLog.Record]) -> Int {
        var committed = 0
        for record in records {
            guard (try? commit(records: [record])) != nil else { break }
            committed += 1
        }
        return committed
    }

    /// Applies what a recorder that died left in the flush log of the data directory, if no recorder
    /// holds the log now (or, with `wait`, once none does). Returns how many records could not
    /// be stored.
    ///
    /// - Parameters:
    ///   - dropping: on a full store, commit what fits and mark the rest spent: what
    ///     finishing or continuing the measurement needs, since the samples after it must not
    ///     follow its stop. Without it, nothing is given up: what does not fit waits in the log
    ///     (a command that only reads).
    ///   - patience: how long to wait for another process's transaction, seconds (by default
    ///     SQLite's busy timeout); a busy store leaves the records in the log.
    @discardableResult
    public func applyFlushLog(wait: Bool, dropping: Bool, patience: Double? = nil) throws(StoreError) -> Int {
        guard FlushLog.mayHavePending(directory: directory, after: try appliedLogSequence()),
            let log = try FlushLog(directory: directory, wait: wait)
        else { return 0 }
        let dropped = try apply(try log.records(after: try appliedLogSequence()), dropping: dropping, patience: patience)
        // A relaxed store's commit may not survive a power loss; the log keeps the records then.
        if durability == .everyCommit { try log.clear() }
        return dropped
    }

    /// Commits flush-log records left by an earlier recorder; with `dropping`, on a full store,
    /// what fits and the rest marked spent (``applyFlushLog(wait:dropping:patience:)``).
    /// Returns how many were given up.
    func apply(_ records: [FlushLog.Record], dropping: Bool, patience: Double?) throws(StoreError) -> Int {
        do {
            try commit(records: records, patience: patience)
            return 0
        } catch .diskFull where dropping {
            let committed = commitWhatFits(records)
            if let last = records.last {
                try write { db in
                    try db.execute(sql: "UPDATE flush_log SET applied = ? WHERE id = 1", arguments: [Int64(last.sequence)])
                }
            }
            return records.count - committed
        }
    }
}
