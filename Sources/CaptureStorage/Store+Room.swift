public import CaptureCore
import GRDB
import Glibc

/// How a recorder keeps the database within `retention.max_store_size` or `--max-store-size`
/// (its budget, the smaller) at every moment a power cut may come, not only after `capture sync`
/// prunes.
///
/// The recorder's connection has a ceiling (SQLite's `max_page_count`, ``Store/limitSize(to:)``),
/// but other writes have none: what the recorder staged in the flush log reaches the database
/// with the next process that opens it (after a cut), the boot's recovery writes the ride's stop,
/// a sync pass records its uploads before it prunes. So the recorder keeps the file, plus what
/// its staged flushes may add once applied, plus a little headroom for those small writes,
/// within the budget, removing delivered rides to get there (``Store/makeRoom(_:target:now:directory:)``).
public struct StoreBudget: Sendable, Equatable {
    /// The budget, bytes.
    public var bytes: Int64

    public init(bytes: Int64) {
        self.bytes = bytes
    }

    /// Left free for other processes' small writes: a sync pass's upload rows and sessions, a
    /// recovery's lifecycle events, the prune's tombstones (two pages of the default size).
    public static let headroom: Int64 = 2 * 4096

    /// The most that staged flushes carrying `weight` bytes (``StagedCommits/stagedWeight``)
    /// add to the database once applied: their rows, the index entries beside them, and pages
    /// left part full by the b-trees (twice the weight), plus a page for the rows a commit
    /// updates; 0 when nothing is staged.
    public static func reserve(staged weight: Int) -> Int64 {
        weight == 0 ? 0 : 2 * Int64(weight) + 4096
    }

    /// The most bytes the database may use now, with `weight` bytes staged, for the budget to
    /// hold after a cut: the budget less ``reserve(staged:)`` and ``headroom``.
    public func target(staged weight: Int) -> Int64 {
        bytes - Self.reserve(staged: weight) - Self.headroom
    }

    /// The room a recorder that waits for it in a full store (`ride.detect: auto`) wants before
    /// it begins rides again: a sixteenth of the budget, at least four pages, so that the first
    /// ride does not fill the store again at once.
    public var roomToResume: Int64 { max(4 * 4096, bytes / 16) }

    /// The same without a budget (a full disk): free space on the data directory's file system.
    public static let roomOnDisk: Int64 = 4 << 20

    /// Whether a database of `size` bytes with `weight` bytes staged is within the budget as
    /// the next process to open it will leave it.
    public func holds(size: Int64, staged weight: Int) -> Bool {
        size <= target(staged: weight)
    }
}

extension Store {
    /// Bytes of the database in use (its pages less the free ones, times the page size): what
    /// ``prune(_:now:directory:dryRun:)`` holds against the budget.
    public func bytesInUse() throws(StoreError) -> Int64 {
        try read { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            return (pages - free) * (try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        }
    }

    /// The database file's size on disk, bytes, from the file system (no database access: cheap
    /// enough for every flush); 0 if it cannot be read.
    public func fileSize() -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Holds this connection's writes to `bytes` (whole pages): a write that needs more fails
    /// with ``StoreError/diskFull(path:)``. SQLite never sets the limit below the database's
    /// current size, so make room first (``makeRoom(_:target:now:directory:)``) when it is over.
    public func limitSize(to bytes: Int64) throws(StoreError) {
        do {
            try queue.inDatabase { db in
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                _ = try Int64.fetchOne(db, sql: "PRAGMA max_page_count = \(max(1, bytes / pageSize))")
            }
        } catch {
            throw Self.map(error, path: path)
        }
    }

    /// Whether ``makeRoom(_:target:now:directory:)`` has anything it may remove under `policy`:
    /// a finished, delivered measurement, or with `drop_unsent: oldest` any finished one.
    public func hasRoomToMake(_ policy: RetentionPolicy) throws(StoreError) -> Bool {
        try read { db in
            let sql =
                policy.dropUnsent == .oldest
                ? "SELECT 1 FROM measurement WHERE status = 'finished' LIMIT 1"
                : """
                SELECT 1 FROM measurement m JOIN upload u ON u.measurement_id = m.id
                WHERE m.status = 'finished' AND u.status = 'uploaded' LIMIT 1
                """
            return try Bool.fetchOne(db, sql: sql) ?? false
        }
    }

    /// Makes room for a recorder: removes what `policy` lets go for space (delivered
    /// measurements, earliest delivered first; unsent ones only with `drop_unsent: oldest`)
    /// until at most `target` bytes are in use, as ``prune(_:now:directory:dryRun:)`` does with
    /// `target` as the budget, and gives the space back. Nothing is written when nothing may go.
    public func makeRoom(_ policy: RetentionPolicy, target: Int64, now: Int64, directory: String) throws(StoreError)
        -> PruneReport
    {
        guard try hasRoomToMake(policy) else { return PruneReport(bytesBefore: try databaseSize()) }
        var policy = policy
        policy.maxStoreSize = ByteSize(bytes: max(1, target))
        return try prune(policy, now: now, directory: directory)
    }
}
