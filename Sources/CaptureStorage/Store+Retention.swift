import CaptureCore
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

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
                var droppedCache = false
                func remove(_ id: Int64, reason: String, discarded: Bool) throws {
                    do {
                        try removeOnce(id, reason: reason, discarded: discarded)
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL && !dryRun {
                        // A full file system: even a delete needs room for its journal, which
                        // holds every page it changes (most of the ride's). First the room nothing
                        // needs: the cached transfer files of delivered measurements; then the
                        // ride goes in steps that each journal a few pages.
                        if !droppedCache {
                            droppedCache = true
                            try dropDeliveredTransferFiles(db, directory: directory)
                        }
                        guard try Self.removeInSteps(db, id, tombstone: (now, reason, discarded)) else { return }
                        report.removed.append(.init(measurement: id, reason: reason, discarded: discarded))
                    }
                }
                // Removals in steps that a cut interrupted (the tombstone is there, the row too)
                // are finished first.
                if !dryRun {
                    let interrupted = try Int64.fetchAll(
                        db,
                        sql: """
                            SELECT m.id FROM measurement m JOIN measurement_tombstone t ON t.measurement_id = m.id
                            WHERE m.status = 'finished'
                            """)
                    for id in interrupted { _ = try Self.removeInSteps(db, id, tombstone: nil) }
                }
                func removeOnce(_ id: Int64, reason: String, discarded: Bool) throws {
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
    ///
    /// On a full file system the pages go back in steps of ``vacuumStep`` pages, each its own
    /// transaction, so that each step's journal (the pages it moves) fits in what the steps
    /// before gave back; a step that finds no room ends it without a failure: the pages left
    /// free stay in the store's free list, where its next commits reuse them.
    public func giveSpaceBack() throws(StoreError) {
        do {
            try queue.writeWithoutTransaction { db in
                if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 {
                    do {
                        try db.execute(sql: "PRAGMA incremental_vacuum")
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
                        try Self.giveSpaceBackInSteps(db)
                    }
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

    /// Pages given back per transaction when the file system is full (256 KiB of 4 KiB pages).
    static let vacuumStep = 64

    /// Rows of a ride's data removed per transaction on a full file system: a sensor batch
    /// fills about a page, so each step's journal holds about 128 KiB.
    static let removalStep = 32

    /// Removes finished measurement `id` in transactions that each change a few pages, for a
    /// file system without room for the journal of one that removes it whole: its tombstone
    /// (when given) first, so that a cut in between leaves it marked as being removed, which
    /// the next prune finishes; then its sensor batches, fixes and pressure samples,
    /// ``removalStep`` rows a step; then its row with the rest. Whether it was there.
    static func removeInSteps(
        _ db: Database, _ id: Int64, tombstone: (at: Int64, reason: String, discarded: Bool)?
    ) throws -> Bool {
        func step(_ sql: String, _ arguments: StatementArguments) throws -> Int {
            try db.execute(sql: "BEGIN IMMEDIATE")
            do {
                try db.execute(sql: sql, arguments: arguments)
                let changes = db.changesCount
                try db.execute(sql: "COMMIT")
                return changes
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        if let tombstone {
            let marked = try step(
                """
                INSERT OR REPLACE INTO measurement_tombstone (measurement_id, removed_at, reason, discarded, start_ts, end_ts)
                SELECT id, ?, ?, ?, start_ts, end_ts FROM measurement WHERE id = ? AND status = 'finished'
                """, [tombstone.at, tombstone.reason, tombstone.discarded, id])
            guard marked > 0 else { return false }
        }
        // Fixes and pressure samples are small: many fit a page.
        for (table, rows) in [("sensor_batch", removalStep), ("location", removalStep * 16), ("pressure", removalStep * 16)] {
            let sql = "DELETE FROM \(table) WHERE measurement_id = ?1 AND id IN (SELECT id FROM \(table) WHERE measurement_id = ?1 LIMIT ?2)"
            while try step(sql, [id, rows]) > 0 {}
        }
        return try step("DELETE FROM measurement WHERE id = ? AND status = 'finished'", [id]) > 0
    }

    /// `PRAGMA incremental_vacuum(N)` until nothing is free or a step finds no room.
    private static func giveSpaceBackInSteps(_ db: Database) throws {
        while let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count"), free > 0 {
            do {
                try db.execute(sql: "PRAGMA incremental_vacuum(\(vacuumStep))")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
                return
            }
            guard try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 < free else { return }
        }
    }

    /// Removes the cached transfer files (with their sidecars) of the measurements the
    /// collector has, and syncs `transfer/`; how many files went. Nothing needs them any more: a
    /// delivered measurement is never sent again, and an export serialises anew.
    @discardableResult
    private func dropDeliveredTransferFiles(_ db: Database, directory: String) throws -> Int {
        let delivered = try Int64.fetchAll(db, sql: "SELECT measurement_id FROM upload WHERE status = 'uploaded'")
        let folder = (directory as NSString).appendingPathComponent("transfer")
        var removed = 0
        for id in delivered {
            for name in ["\(id).ccyf", "\(id).ccyf.meta"] where unlink(folder + "/" + name) == 0 { removed += 1 }
        }
        // Best effort: a removal a cut undoes is only space, and the next prune removes it again.
        if removed > 0 { PrivateFiles.syncParent(of: folder + "/.") }
        return removed
    }

    /// Prunes to make room on a full disk or store, as the recorder does when a commit does
    /// not fit and `capture sync` when a pass does not: delivered measurements go, the earliest
    /// delivered first, as if the budget were the store's size less `room` bytes (never more
    /// than `policy`'s own budget, and with its other rules: `drop_unsent: oldest` as well).
    public func pruneForRoom(
        _ policy: RetentionPolicy, now: Int64, directory: String, room: Int64 = 1_048_576
    ) throws(StoreError) -> PruneReport {
        let target = min(policy.maxStoreSize?.bytes ?? .max, max(4096, try databaseSize() - room))
        return try makeRoom(policy, target: target, now: now, directory: directory)
    }

    /// Counts the tombstones of measurements that are gone, discarded (argument 1) or not. A
    /// removal in steps that a cut interrupted left its tombstone beside the measurement, which
    /// counts as what it still is until the next prune finishes the removal.
    static let countTombstones = """
        SELECT COUNT(*) FROM measurement_tombstone WHERE discarded = ? AND measurement_id NOT IN (SELECT id FROM measurement)
        """

    /// Measurements removed before anyone received them (`drop_unsent: oldest`).
    public func discardedCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: Self.countTombstones, arguments: [true]) ?? 0 }
    }

    /// Delivered measurements removed since (they still count as delivered).
    public func prunedDeliveredCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: Self.countTombstones, arguments: [false]) ?? 0 }
    }
}
