import Foundation
import GRDB
import Glibc

// Opening a store: the connection's settings, the retry while another process creates the
// database, the journal mode, and the migrations (``Schema``) under a lock across processes.
extension Store {
    /// The connection's settings: the rollback journal, how hard commits push to the disk
    /// (`durability`) and the size limit (`maximumSize`, see ``init(directory:durability:maximumSize:)``).
    static func configuration(durability: Durability, maximumSize: Int64?) -> Configuration {
        var config = Configuration()
        config.journalMode = .default
        config.busyMode = .timeout(Self.busyTimeout)
        config.label = "capture"
        let synchronous = durability == .everyCommit ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            // A new database gives freed pages back with `PRAGMA incremental_vacuum` (retention);
            // on an existing one this takes effect only with the VACUUM that prune runs once.
            // Set only when it is not: setting it takes the write lock, which would make every
            // command that merely reads wait for a long reader of the store (issue 28, item 5).
            if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 {
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            }
            try Self.useRollbackJournal(db)
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            // Freed pages are not overwritten (SQLite as Debian builds it overwrites them): a
            // delete then journals the pages it changes, not those it only frees, so removing a
            // ride needs less room (a full disk: docs/faults.md) and writes less.
            try db.execute(sql: "PRAGMA secure_delete = FAST")
            if let maximumSize {
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                // At least one page: 0 would mean "leave the limit unchanged" to SQLite.
                _ = try Int64.fetchOne(db, sql: "PRAGMA max_page_count = \(max(1, maximumSize / pageSize))")
            }
        }
        return config
    }

    /// Opens the database at `path`, migrated and with its device row.
    ///
    /// Another process may be creating the database right now (a recorder starting while
    /// `capture status` runs): SQLite's busy timeout does not cover switching the journal
    /// mode, so opening is retried for a few seconds on a busy or locked database.
    static func openQueue(path: String, configuration: Configuration) throws(StoreError) -> DatabaseQueue {
        var attempt = 0
        while true {
            do {
                return try open(path: path, configuration: configuration)
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && attempt < 250
            {
                attempt += 1
                usleep(20_000)
            } catch {
                throw map(error, path: path)
            }
        }
    }

    /// How long a statement waits for another process's lock before it fails, seconds.
    static let busyTimeout: Double = 10

    /// Sets this connection's journal to a rollback journal truncated after each commit.
    ///
    /// A rollback journal is a setting of the connection, WAL one of the file. A store made
    /// before (WAL) is converted when this process has it to itself, which SQLite needs for the
    /// change; while another process has it open it stays WAL for now, which works the same and
    /// only writes more, and the next open tries again. Truncating rather than deleting the
    /// journal leaves the directory alone at each commit.
    static func useRollbackJournal(_ db: Database) throws {
        guard try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" else {
            try db.execute(sql: "PRAGMA journal_mode = TRUNCATE")
            return
        }
        // Not waiting for the other processes: they may keep the store open for hours.
        try db.execute(sql: "PRAGMA busy_timeout = 0")
        _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = TRUNCATE")
        try db.execute(sql: "PRAGMA busy_timeout = \(Int(busyTimeout * 1000))")
    }

    private static func open(path: String, configuration: Configuration) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // Write only when something is missing, so that commands that merely read change
        // nothing on disk.
        let migrator = Schema.migrator
        // A store another process is creating this moment may fail this first look ("no such
        // table: grdb_migrations" half-way through its migrations): then look again under the
        // lock, once the creator is done.
        if (try? queue.read({ try migrator.hasCompletedMigrations($0) })) != true {
            // GRDB checks what is applied outside the migrations' transactions, so two processes
            // opening a new database at once could both migrate: take a lock across processes
            // and check again under it.
            let fd = PrivateFiles.open(path + ".migrate-lock", O_RDWR)
            guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
            defer { close(fd) }
            // swift-system has no flock(2) on Linux (only O_EXLOCK on Darwin/FreeBSD), so the
            // retry after a signal stays written out here.
            while flock(fd, LOCK_EX) != 0, errno == EINTR {}
            if try !queue.read({ try migrator.hasCompletedMigrations($0) }) {
                try migrator.migrate(queue)
            }
        }
        if try queue.read({ try String.fetchOne($0, sql: "SELECT device_id FROM device WHERE id = 1") }) == nil {
            try queue.write { db in
                try db.execute(
                    sql: "INSERT OR IGNORE INTO device (id, device_id) VALUES (1, ?)",
                    arguments: [UUID().uuidString.lowercased()])
            }
        }
        return queue
    }
}
