import GRDB

// What the database says of itself: its integrity and its size.
extension Store {
    /// Runs SQLite's `PRAGMA integrity_check`; returns its verdict (`ok` when sound).
    public func integrityCheck() throws(StoreError) -> String {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// Runs SQLite's `PRAGMA quick_check` (integrity_check without the index cross-checks, in
    /// time linear in the database's size); returns its verdict (`ok` when sound).
    public func quickCheck() throws(StoreError) -> String {
        try read { db in try String.fetchAll(db, sql: "PRAGMA quick_check").joined(separator: "; ") }
    }

    /// The database's size in bytes (pages in use or free, times the page size; of a store still
    /// in WAL mode, committed data in the WAL included): what `maximumSize` limits.
    public func databaseSize() throws(StoreError) -> Int64 {
        try read { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            return pages * (try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
    }
}
