import CaptureCore
import Foundation
import GRDB

/// What ``Store/prune(_:now:directory:dryRun:)`` removed, or would remove.
public struct PruneReport: Sendable, Equatable, Codable {
    /// One measurement removed.
    public struct Removed: Sendable, Equatable, Codable {
        public var measurement: Int64
        /// Why: kept long enough after its delivery, or the store over its budget.
        public var reason: String
        /// Whether it was never delivered (only with `drop_unsent: oldest`).
        public var discarded: Bool
    }

    public var removed: [Removed] = []
    /// The database's size before and after (after giving the space back).
    public var bytesBefore: Int64 = 0
    public var bytesAfter: Int64 = 0
    /// Bytes in use after removing (what the budget is held against).
    public var bytesInUse: Int64 = 0
    /// Whether the store is still over `max_store_size`: nothing more may be removed.
    public var overBudget = false
    /// Whether nothing was changed (`--dry-run`).
    public var dryRun = false

    /// An empty report.
    public init(bytesBefore: Int64 = 0, dryRun: Bool = false) {
        self.bytesBefore = bytesBefore
        self.dryRun = dryRun
    }

    /// What `capture prune` prints: a line per measurement removed (or that would be), then the
    /// database's size before and after.
    public var lines: [String] {
        let verb = dryRun ? "would remove" : "removed"
        return removed.map { "measurement \($0.measurement): \(verb) (\($0.reason))" } + [
            "prune: \(removed.count) \(verb); database \(ByteCount.text(bytesBefore)) → \(ByteCount.text(bytesAfter))"
                + (overBudget ? "; still over retention.max_store_size: nothing more may go" : "")
        ]
    }
}

/// Retention (`retention:` in the config file): what may leave the local store, and when.
extension Store {
    /// Removes what `policy` allows, oldest first, and gives the space back to the file system.
    ///
    /// 1. A measurement the collector confirmed (201, or 409 on the pre-request) goes once it
    ///    was delivered more than `keepUploadedDays` ago.
    /// 2. While the store holds more than `maxStoreSize`, delivered measurements go, the earliest
    ///    delivered first, whatever their age.
    /// 3. Only with `dropUnsent: .oldest`, and only while still over budget: finished
    ///    measurements nobody received, the oldest first, each recorded as discarded.
    ///
    /// The open measurement is never touched. Each removal is one transaction with its
    /// tombstone, so a crash at any moment leaves every measurement either whole or removed and
    /// recorded; nothing unsent is removed without `.oldest`. Then the files of every measurement
    /// no longer in the store go, those of an earlier removal a power cut interrupted too, and
    /// their directories are synced (``removeLeftovers(in:)``). The freed pages are then returned
    /// with `PRAGMA incremental_vacuum` (a database made before auto-vacuum was set is converted
    /// once, with a full `VACUUM`). With `dryRun` everything happens in one transaction that is
    /// rolled back: the report says what would go.
    public func prune(_ policy: RetentionPolicy, now: Int64, directory: String, dryRun: Bool = false) throws(StoreError)
        -> PruneReport
    {
        var report = PruneReport(bytesBefore: try databaseSize(), dryRun: dryRun)
        do {
            try queue.writeWithoutTransaction { db in
                if dryRun { try db.execute(sql: "BEGIN IMMEDIATE") }
                defer { if dryRun, db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") } }
                func remove(_ id: Int64, reason: String, discarded: Bool) throws {
                    if !dryRun { try db.execute(sql: "BEGIN IMMEDIATE") }
                    do {
                        // Removed first, its tombstone after: on a store at its ceiling the
                        // tombstone takes one of the pages the removal freed.
                        let span = try Row.fetchOne(
                            db, sql: "SELECT start_ts, end_ts FROM measurement WHERE id = ? AND status = 'finished'", arguments: [id])
                        try db.execute(sql: "DELETE FROM measurement WHERE id = ? AND status = 'finished'", arguments: [id])
                        if let span {
                            try db.execute(
                                sql: """
                                    INSERT OR REPLACE INTO measurement_tombstone
                                        (measurement_id, removed_at, reason, discarded, start_ts, end_ts)
                                    VALUES (?, ?, ?, ?, ?, ?)
                                    """, arguments: [id, now, reason, discarded, span["start_ts"] as Int64?, span["end_ts"] as Int64?])
                        }
                        if !dryRun { try db.execute(sql: "COMMIT") }
                    } catch {
                        if !dryRun, db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                        throw error
                    }
                    report.removed.append(.init(measurement: id, reason: reason, discarded: discarded))
                }
                func inUse() throws -> Int64 {
                    let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                    return (pages - free) * (try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
                }
                // Delivered, earliest delivery first.
                let delivered = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT m.id AS id, COALESCE(u.uploaded_at, u.updated_at) AS at FROM measurement m
                        JOIN upload u ON u.measurement_id = m.id
                        WHERE m.status = 'finished' AND u.status = 'uploaded' ORDER BY 2, m.id
                        """
                ).map { (id: $0["id"] as Int64, at: $0["at"] as Int64) }
                var kept = delivered
                if let days = policy.keepUploadedDays {
                    let limit = now - Int64(days) * 86_400_000
                    for entry in delivered where entry.at <= limit {
                        try remove(entry.id, reason: "delivered more than \(days) day(s) ago", discarded: false)
                    }
                    kept.removeAll { $0.at <= limit }
                }
                if let budget = policy.maxStoreSize?.bytes {
                    for entry in kept {
                        guard try inUse() > budget else { break }
                        try remove(entry.id, reason: "the store is over its budget; delivered", discarded: false)
                    }
                    if policy.dropUnsent == .oldest, try inUse() > budget {
                        let unsent = try Int64.fetchAll(
                            db,
                            sql: """
                                SELECT m.id FROM measurement m LEFT JOIN upload u ON u.measurement_id = m.id
                                WHERE m.status = 'finished' AND COALESCE(u.status, 'pending') != 'uploaded'
                                ORDER BY m.end_ts, m.id
                                """)
                        for id in unsent {
                            guard try inUse() > budget else { break }
                            try remove(id, reason: "the store is over its budget; never delivered (drop_unsent: oldest)", discarded: true)
                        }
                    }
                    report.overBudget = try inUse() > budget
                }
                report.bytesInUse = try inUse()
            }
        } catch {
            throw Self.map(error, path: path)
        }
        if !dryRun {
            // The files of what went (and of any removal a power cut interrupted), made durable.
            try removeLeftovers(in: directory)
            if !report.removed.isEmpty { try giveSpaceBack() }
        }
        report.bytesAfter = try databaseSize()
        return report
    }

    /// Returns free pages to the file system: incrementally where the database is set up for it,
    /// else by converting it once (`auto_vacuum = INCREMENTAL` takes effect with a `VACUUM`).
    public func giveSpaceBack() throws(StoreError) {
        do {
            try queue.writeWithoutTransaction { db in
                if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 {
                    try db.execute(sql: "PRAGMA incremental_vacuum")
                } else {
                    try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                    try db.execute(sql: "VACUUM")
                }
                // A store still in WAL mode (made by an earlier version, not yet converted) holds
                // the freed pages' last versions in the WAL until a checkpoint.
                _ = try? Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        } catch {
            throw Self.map(error, path: path)
        }
    }

    /// Measurements removed before anyone received them (`drop_unsent: oldest`).
    public func discardedCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM measurement_tombstone WHERE discarded = 1") ?? 0 }
    }

    /// Delivered measurements removed since (they still count as delivered).
    public func prunedDeliveredCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM measurement_tombstone WHERE discarded = 0") ?? 0 }
    }
}
