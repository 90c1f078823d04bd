import Foundation
import GRDB

/// The SQLite store of one data directory (`capture.sqlite`, with a rollback journal).
///
/// Every flush of the recorder is one transaction: the samples captured since the previous
/// flush, then the lifecycle events that follow them. A crash therefore loses at most what was
/// captured since the last flush, and never leaves half a flush behind.
///
/// The journal is SQLite's rollback journal (`journal_mode = TRUNCATE`), not WAL. A WAL writes
/// every page twice, into the WAL at the commit and into the database at the checkpoint; a
/// rollback journal keeps the old content of the pages a transaction changes, and a transaction
/// that mostly appends (samples do) changes few: a live ride writes 4.4 MB an hour less
/// (BENCHMARKS.md, "Writes per hour"). The price: a reader's transaction and a writer's
/// commit exclude each other. Readers therefore keep their transactions short (exports read in
/// chunks, ``forEachBatch(of:sensor:_:)``), and the recorder's staged commits, which can
/// wait, give way to a reader (``StagedCommits``).
///
/// The store's code is split by concern: opening and migrations (`Store+Open.swift`,
/// `Schema.swift`), the recorder's commit path (`Store+Commit.swift`), the readers
/// (`Store+Read.swift`), errors (`StoreError.swift`), and one file per further concern
/// (`Store+Upload.swift`, `Store+Transfer.swift`, `Store+Retention.swift`, …).
public final class Store: Sendable {
    /// How hard each commit pushes data to the disk.
    public enum Durability: Sendable {
        /// fsync at every commit (`synchronous = FULL`): a committed flush survives power loss.
        /// For live capture.
        case everyCommit
        /// fsync at checkpoints only (`synchronous = NORMAL`): a crash never corrupts the
        /// database, but a power loss may drop the last commits. For replays and imports, which
        /// are simply run again.
        case relaxed
    }

    /// The data directory.
    public let directory: String
    /// The database file.
    public let path: String
    /// How hard its commits push data to the disk.
    public let durability: Durability
    /// The time (Unix ms) its uploads and attachments are stamped with: the wall clock, or a
    /// simulated one (`capture-faults simulate`).
    let clock: @Sendable () -> Int64
    let queue: DatabaseQueue

    /// Opens (creating if needed) the store in `directory` and applies pending migrations
    /// (``Schema``; how a connection is set up and opened: `Store+Open.swift`).
    ///
    /// - Parameter maximumSize: the most bytes the database may grow to through this connection
    ///   (SQLite's `max_page_count`, rounded down to whole pages, never below the database's
    ///   current size). A write that needs more fails with ``StoreError/diskFull(path:)``, as on
    ///   a full disk, and is rolled back. `nil`: no limit but the disk's.
    /// - Parameter clock: the time uploads and attachments are stamped with (Unix ms).
    public init(
        directory: String, durability: Durability = .everyCommit, maximumSize: Int64? = nil,
        clock: @escaping @Sendable () -> Int64 = Store.wallClock
    ) throws(StoreError) {
        self.clock = clock
        do {
            try PrivateFiles.createDirectory(directory)
        } catch {
            throw .cannotOpen(path: directory, reason: Self.notADirectory(directory) ?? Self.reason(error))
        }
        path = (directory as NSString).appendingPathComponent("capture.sqlite")
        self.durability = durability
        self.directory = directory
        // Created here with mode 0600 before SQLite opens it (an empty file is an empty
        // database): SQLite gives its -wal, -shm and -journal the database file's permissions.
        // An existing database is not opened here: closing that descriptor would release the
        // locks of another Store of this process on the same file (PrivateFiles.createIfAbsent).
        _ = PrivateFiles.createIfAbsent(path)
        queue = try Self.openQueue(
            path: path, configuration: Self.configuration(durability: durability, maximumSize: maximumSize))
        // Samples a recorder that died left in the flush log go to the database first, so that
        // every reader sees them; what does not fit waits there for `capture stop` or a resumed
        // recorder (applyFlushLog's `dropping`). Not for long: while another process reads,
        // they wait there for the recorder that starts next (StagedCommits) or the next opening.
        _ = try? applyFlushLog(wait: false, dropping: false, patience: StagedCommits.lifecyclePatience)
    }

    // MARK: - Transactions

    /// Runs `body` in a read transaction; any error comes out as a ``StoreError``
    /// (``map(_:path:)``).
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try queue.read(body)
        } catch {
            throw Self.map(error, path: path)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE` … `COMMIT`, rolled back on any
    /// error). Both statements come from the statement cache: GRDB's `write` prepares them anew
    /// on every call, which a full-speed replay (a commit per second of ride) pays thousands of
    /// times.
    ///
    /// - Parameter patience: how long to wait for other processes' locks, seconds, if not
    ///   ``busyTimeout``; a write that waited that long fails with ``StoreError/busy(path:)``.
    func write<T>(patience: Double? = nil, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                if let patience {
                    try db.cachedStatement(sql: "PRAGMA busy_timeout = \(Int(patience * 1000))").execute()
                }
                defer {
                    if patience != nil {
                        try? db.cachedStatement(sql: "PRAGMA busy_timeout = \(Int(Self.busyTimeout * 1000))").execute()
                    }
                }
                try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
                do {
                    let result = try body(db)
                    try db.cachedStatement(sql: "COMMIT").execute()
                    return result
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        } catch {
            throw Self.map(error, path: path)
        }
    }
}
