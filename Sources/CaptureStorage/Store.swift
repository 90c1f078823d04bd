public import CaptureCore
import Foundation
import GRDB
import Glibc

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
    let queue: DatabaseQueue

    /// Opens (creating if needed) the store in `directory` and applies pending migrations.
    ///
    /// - Parameter maximumSize: the most bytes the database may grow to through this connection
    ///   (SQLite's `max_page_count`, rounded down to whole pages, never below the database's
    ///   current size). A write that needs more fails with ``StoreError/diskFull(path:)``, as on
    ///   a full disk, and is rolled back. `nil`: no limit but the disk's.
    public init(
        directory: String, durability: Durability = .everyCommit, maximumSize: Int64? = nil
    ) throws(StoreError) {
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
        var config = Configuration()
        config.journalMode = .default
        config.busyMode = .timeout(Self.busyTimeout)
        config.label = "capture"
        let synchronous = durability == .everyCommit ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            // A new database gives freed pages back with `PRAGMA incremental_vacuum` (retention);
            // on an existing one this takes effect only with the VACUUM that prune runs once.
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            try Self.useRollbackJournal(db)
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            if let maximumSize {
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                // At least one page: 0 would mean "leave the limit unchanged" to SQLite.
                _ = try Int64.fetchOne(db, sql: "PRAGMA max_page_count = \(max(1, maximumSize / pageSize))")
            }
        }
        // Another process may be creating the database right now (a recorder starting while
        // `capture status` runs): SQLite's busy timeout does not cover switching the journal
        // mode, so opening is retried for a few seconds on a busy or locked database.
        var attempt = 0
        while true {
            do {
                queue = try Self.open(path: path, configuration: config)
                break
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && attempt < 250
            {
                attempt += 1
                usleep(20_000)
            } catch {
                throw Self.map(error, path: path)
            }
        }
        // Samples a recorder that died left in the flush log go to the database first, so that
        // every reader sees them; what does not fit waits there for `capture stop` or a resumed
        // recorder (applyFlushLog's `dropping`).
        _ = try? applyFlushLog(wait: false, dropping: false)
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
        if try !queue.read({ try migrator.hasCompletedMigrations($0) }) {
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

    /// The installation's identity: a random UUID created with the store, never changed.
    public func deviceID() throws(StoreError) -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT device_id FROM device WHERE id = 1") ?? "" }
    }

    // MARK: - Writing

    /// Creates a measurement and commits the flush that starts it (LIFECYCLE_START and the
    /// initial MODALITY_TYPE_CHANGE), in one transaction. Returns the new measurement id.
    ///
    /// Throws ``StoreError/alreadyOpen(_:)`` if another measurement is open.
    public func begin(_ flush: Flush, sources: String) throws(StoreError) -> Int64 {
        try begin(EncodedFlush(flush), sources: sources)
    }

    /// ``begin(_:sources:)-(Flush,_)`` for a flush encoded beforehand.
    public func begin(_ encoded: EncodedFlush, sources: String) throws(StoreError) -> Int64 {
        let flush = encoded.flush
        guard let start = flush.events.first(where: { $0.type == .lifecycleStart }),
            let modality = flush.modality
        else { throw .database("a measurement must begin with LIFECYCLE_START") }
        return try write { db in
            if let open = try Int64.fetchOne(db, sql: "SELECT id FROM measurement WHERE status != 'finished'") {
                throw StoreError.alreadyOpen(open)
            }
            try db.execute(
                sql: "INSERT INTO measurement (status, modality, start_ts, track_count, sources) VALUES (?, ?, ?, 0, ?)",
                arguments: [flush.state.name, modality.rawValue, start.timestamp, sources])
            let id = db.lastInsertedRowID
            try Self.apply(encoded, to: id, in: db)
            return id
        }
    }

    /// Commits one flush of an open measurement in one transaction. An empty flush writes nothing.
    public func commit(_ flush: Flush, to measurement: Int64) throws(StoreError) {
        guard !flush.isEmpty else { return }
        try commit(EncodedFlush(flush), to: measurement)
    }

    /// ``commit(_:to:)-(Flush,_)`` for a flush encoded beforehand.
    public func commit(_ encoded: EncodedFlush, to measurement: Int64) throws(StoreError) {
        try commit([encoded], to: measurement)
    }

    /// Commits several flushes of a measurement, in order, in one transaction: a replay's,
    /// which keeps nothing of a measurement it could not finish, so its flushes need not be
    /// durable one by one.
    public func commit(_ flushes: [EncodedFlush], to measurement: Int64) throws(StoreError) {
        guard flushes.contains(where: { !$0.isEmpty }) else { return }
        try write { db in
            for flush in flushes where !flush.isEmpty { try Self.apply(flush, to: measurement, in: db) }
        }
    }

    static func apply(_ encoded: EncodedFlush, to id: Int64, in db: Database) throws {
        let flush = encoded.flush
        if !encoded.batches.isEmpty {
            var insert = DirectStatement(try db.cachedStatement(sql: insertSensorBatch))
            for batch in encoded.batches {
                insert.bind(id)
                insert.bind(flush.track)
                insert.bind(batch.sensor.rawValue)
                insert.bind(batch.firstTimestamp)
                insert.bind(batch.lastTimestamp)
                insert.bind(batch.count)
                insert.bind(batch.data)
                try insert.run()
            }
        }
        if !flush.fixes.isEmpty {
            var row = try lastRow(of: "location", measurement: id, in: db)
            var insert = DirectStatement(try db.cachedStatement(sql: insertLocation))
            for fix in flush.fixes {
                row += 1
                insert.bind(id)
                insert.bind(row)
                insert.bind(flush.track)
                insert.bind(fix.timestamp)
                insert.bind(fix.latitude)
                insert.bind(fix.longitude)
                insert.bind(fix.altitude)
                insert.bind(fix.horizontalAccuracy)
                insert.bind(fix.verticalAccuracy)
                insert.bind(fix.speed)
                insert.bind(fix.course)
                insert.bind(fix.satellites.map(Double.init))
                insert.bind(fix.hdop)
                insert.bind(fix.vdop)
                insert.bind(fix.pdop)
                insert.bind(fix.mode.map { Double($0.rawValue) })
                try insert.run()
            }
        }
        if !flush.pressures.isEmpty {
            var row = try lastRow(of: "pressure", measurement: id, in: db)
            var insert = DirectStatement(
                try db.cachedStatement(
                    sql: "INSERT INTO pressure (measurement_id, id, track, ts, hpa) VALUES (?, ?, ?, ?, ?)"))
            for pressure in flush.pressures {
                row += 1
                insert.bind(id)
                insert.bind(row)
                insert.bind(flush.track)
                insert.bind(pressure.timestamp)
                insert.bind(pressure.hectopascals)
                try insert.run()
            }
        }
        for event in flush.events {
            try db.execute(
                sql: "INSERT INTO event (measurement_id, ts, type, value) VALUES (?, ?, ?, ?)",
                arguments: [id, event.timestamp, event.type.rawValue, event.value])
            switch event.type {
            case .lifecycleStart, .lifecycleResume:
                try db.execute(
                    sql: """
                        INSERT INTO track (measurement_id, number, start_ts)
                        VALUES (?, (SELECT COALESCE(MAX(number), 0) + 1 FROM track WHERE measurement_id = ?), ?)
                        """,
                    arguments: [id, id, event.timestamp])
            case .lifecyclePause, .lifecycleStop:
                try db.execute(
                    sql: "UPDATE track SET end_ts = ? WHERE measurement_id = ? AND end_ts IS NULL",
                    arguments: [event.timestamp, id])
                if event.type == .lifecycleStop {
                    try db.execute(sql: "UPDATE measurement SET end_ts = ? WHERE id = ?", arguments: [event.timestamp, id])
                }
            case .modalityTypeChange:
                break
            }
        }
        if !flush.events.isEmpty {
            try db.execute(
                sql: "UPDATE measurement SET status = ?, track_count = ? WHERE id = ?",
                arguments: [flush.state.name, flush.state.track, id])
        }
    }

    /// The largest batch stored in one row; the Android SDK's limit per message.
    public static let maximumBatch = EncodedFlush.maximumBatch

    /// One `sensor_batch` row, for the commit path and import alike; arguments in column order.
    static let insertSensorBatch = """
        INSERT INTO sensor_batch (measurement_id, track, sensor, first_ts, last_ts, count, data)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    static let insertLocation = """
        INSERT INTO location (measurement_id, id, track, ts, lat, lon, altitude, horizontal_accuracy,
            vertical_accuracy, speed, course, satellites, hdop, vdop, pdop, fix_mode)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The last row number of a measurement in `location` or `pressure` (numbered from 1 within
    /// the measurement), 0 if it has none.
    static func lastRow(of table: String, measurement: Int64, in db: Database) throws -> Int64 {
        var query = DirectStatement(try db.cachedStatement(sql: "SELECT MAX(id) FROM \(table) WHERE measurement_id = ?"))
        query.bind(measurement)
        return try query.int64() ?? 0
    }

    /// Deletes a measurement and everything recorded for it, in one transaction.
    public func delete(_ id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM measurement WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw StoreError.measurementNotFound(id) }
        }
    }

    /// Replaces the sources a measurement records (``MeasurementRecord/sources``, one spec a
    /// line), which `capture resume` restarts its recorder with: a recovered trace source stores
    /// where its playback now stands.
    public func updateSources(_ sources: String, of id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE measurement SET sources = ? WHERE id = ?", arguments: [sources, id])
        }
    }

    // MARK: - Reading

    /// The open (capturing or paused) measurement, if any.
    public func openMeasurement() throws(StoreError) -> MeasurementRecord? {
        try read { db in
            try Row.fetchOne(db, sql: "\(Self.measurementColumns) WHERE status != 'finished'").map(measurement)
        }
    }

    /// One measurement, or ``StoreError/measurementNotFound(_:)``.
    public func measurement(_ id: Int64) throws(StoreError) -> MeasurementRecord {
        let record = try read { db in
            try Row.fetchOne(db, sql: "\(Self.measurementColumns) WHERE id = ?", arguments: [id]).map(measurement)
        }
        guard let record else { throw .measurementNotFound(id) }
        return record
    }

    /// All measurements, oldest first.
    public func measurements() throws(StoreError) -> [MeasurementRecord] {
        try read { db in try Row.fetchAll(db, sql: "\(Self.measurementColumns) ORDER BY id").map(measurement) }
    }

    private static let measurementColumns =
        "SELECT id, status, modality, start_ts, end_ts, track_count, sources FROM measurement"

    /// A measurement row as a record; a status this version does not know means a damaged (or
    /// newer) database, not a finished measurement.
    private func measurement(_ row: Row) throws(StoreError) -> MeasurementRecord {
        let id: Int64 = row[0]
        let text: String = row[1]
        guard let status = MeasurementStatus(rawValue: text) else {
            throw .corrupt(path: path, reason: "measurement \(id) has the unknown status '\(text)'")
        }
        return MeasurementRecord(
            id: id, status: status, modality: row[2], startTime: row[3], endTime: row[4], trackCount: row[5],
            sources: row[6])
    }

    /// The tracks of a measurement, in order.
    public func tracks(of id: Int64) throws(StoreError) -> [TrackRecord] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT number, start_ts, end_ts FROM track WHERE measurement_id = ? ORDER BY number",
                arguments: [id]
            ).map { TrackRecord(number: $0[0], startTime: $0[1], endTime: $0[2]) }
        }
    }

    /// The events of a measurement, in the order they were recorded.
    public func events(of id: Int64) throws(StoreError) -> [Event] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT ts, type, value FROM event WHERE measurement_id = ? ORDER BY id", arguments: [id]
            ).compactMap { row in
                EventType(rawValue: row[1]).map { Event(timestamp: row[0], type: $0, value: row[2]) }
            }
        }
    }

    /// Sample counts of a measurement, or of one of its tracks.
    public func counts(of id: Int64, track: Int? = nil) throws(StoreError) -> SampleCounts {
        try read { db in
            let filter = track == nil ? "" : " AND track = ?"
            var arguments: StatementArguments = [id]
            if let track { _ = arguments.append(contentsOf: [track]) }
            var counts = SampleCounts()
            for row in try Row.fetchAll(
                db, sql: "SELECT sensor, SUM(count) FROM sensor_batch WHERE measurement_id = ?\(filter) GROUP BY sensor",
                arguments: arguments)
            {
                if let sensor = MotionSensor(rawValue: row[0]) { counts[sensor] = row[1] }
            }
            counts.locations =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM location WHERE measurement_id = ?\(filter)", arguments: arguments)
                ?? 0
            counts.pressure =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pressure WHERE measurement_id = ?\(filter)", arguments: arguments)
                ?? 0
            return counts
        }
    }

    /// The fixes of a measurement (or of one track), in time order.
    public func fixes(of id: Int64, track: Int? = nil) throws(StoreError) -> [Fix] {
        var fixes: [Fix] = []
        try forEachFix(of: id, track: track) { fixes.append($0) }
        return fixes
    }

    /// Calls `body` with each fix of a measurement (or of one track), in time order, without
    /// loading them all; read in chunks (``forEachRow(from:fetch:key:_:)``).
    public func forEachFix(of id: Int64, track: Int? = nil, _ body: (Fix) throws -> Void) throws(StoreError) {
        let filter = track == nil ? "" : " AND track = ?"
        try forEachRow(
            from: (ts: Int64.min, id: Int64.min),
            fetch: { db, after in
                var arguments: StatementArguments = [id]
                if let track { _ = arguments.append(contentsOf: [track]) }
                _ = arguments.append(contentsOf: [after.ts, after.ts, after.id, Self.chunkRows.fixes])
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT ts, lat, lon, altitude, horizontal_accuracy, vertical_accuracy, speed, course,
                            satellites, hdop, vdop, pdop, fix_mode, id
                        FROM location WHERE measurement_id = ?\(filter) AND (ts > ? OR (ts = ? AND id > ?))
                        ORDER BY ts, id LIMIT ?
                        """, arguments: arguments)
            },
            key: { row in (row[0], row[13]) }
        ) { row in
            try body(
                Fix(
                    timestamp: row[0], latitude: row[1], longitude: row[2], altitude: row[3],
                    horizontalAccuracy: row[4], verticalAccuracy: row[5], speed: row[6], course: row[7],
                    satellites: row[8], hdop: row[9], vdop: row[10], pdop: row[11],
                    mode: (row[12] as Int?).flatMap(FixMode.init(rawValue:))))
        }
    }

    /// Calls `body` with each row `fetch` gives, chunk after chunk: `fetch` reads the rows after
    /// a key (at most a chunk of them, in key order), `key` gives a row's. Each chunk is read in
    /// a transaction of its own that ends before `body` sees it: a consumer that stalls (an
    /// export piped into a pager) holds no lock on the store, which would keep the recorder's
    /// commits out (``Store``). Rows committed meanwhile after the last one read come too.
    private func forEachRow<Key>(
        from start: Key, fetch: (Database, Key) throws -> [Row], key: (Row) -> Key, _ body: (Row) throws -> Void
    ) throws(StoreError) {
        var after = start
        while true {
            let chunk = try read { db in try fetch(db, after) }
            guard let last = chunk.last else { return }
            after = key(last)
            do {
                for row in chunk { try body(row) }
            } catch {
                throw Self.map(error, path: path)
            }
        }
    }

    /// Rows read in one transaction by the chunked readers: a few hundred KB of batches; fixes
    /// more at a time, as each chunk of them is sorted out of all the measurement's (the table
    /// is kept in arrival order), and a day has 86,400.
    static let chunkRows = (fixes: 4096, batches: 512)

    /// The pressure samples of a measurement, in time order.
    public func pressures(of id: Int64) throws(StoreError) -> [PressureSample] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT ts, hpa FROM pressure WHERE measurement_id = ? ORDER BY ts, id", arguments: [id]
            ).map { PressureSample(timestamp: $0[0], hectopascals: $0[1]) }
        }
    }

    /// Calls `body` with each stored batch of one sensor, in storage order, without loading them
    /// all; read in chunks (``forEachRow(from:fetch:key:_:)``).
    public func forEachBatch(
        of id: Int64, sensor: MotionSensor, _ body: (StoredBatch) throws -> Void
    ) throws(StoreError) {
        try forEachRow(
            from: Int64.min,
            fetch: { db, after in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT track, first_ts, last_ts, count, data, id FROM sensor_batch
                        WHERE measurement_id = ? AND sensor = ? AND id > ? ORDER BY id LIMIT ?
                        """, arguments: [id, sensor.rawValue, after, Self.chunkRows.batches])
            },
            key: { row in row[5] }
        ) { row in
            let data: Data = row[4]
            try body(
                StoredBatch(
                    track: row[0], sensor: sensor, firstTime: row[1], lastTime: row[2], count: row[3],
                    data: [UInt8](data)))
        }
    }

    /// Decodes a stored batch into SI samples.
    public static func samples(of batch: StoredBatch) throws(StoreError) -> [MotionSample] {
        do {
            return try CyfaceBatch.decode(batch.data, sensor: batch.sensor)
        } catch {
            throw .corrupt(path: "sensor batch", reason: "\(error)")
        }
    }

    /// The latest timestamp of anything committed for a measurement (samples or events).
    public func lastTimestamp(of id: Int64) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(t) FROM (
                        SELECT MAX(ts) AS t FROM event WHERE measurement_id = ?1
                        UNION ALL SELECT MAX(ts) FROM location WHERE measurement_id = ?1
                        UNION ALL SELECT MAX(ts) FROM pressure WHERE measurement_id = ?1
                        UNION ALL SELECT MAX(last_ts) FROM sensor_batch WHERE measurement_id = ?1)
                    """, arguments: [id])
        }
    }

    /// The modality in force at the end of the measurement (its last MODALITY_TYPE_CHANGE).
    public func currentModality(of id: Int64) throws(StoreError) -> Modality? {
        try read { db in
            try String.fetchOne(
                db,
                sql: "SELECT value FROM event WHERE measurement_id = ? AND type = ? ORDER BY id DESC LIMIT 1",
                arguments: [id, EventType.modalityTypeChange.rawValue]
            ).flatMap(Modality.init(parsing:))
        }
    }

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

    // MARK: - Plumbing

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

    static func map(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return .diskFull(path: path)
            case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy(path: path)
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .corrupt(path: path, reason: error.message ?? "\(error)")
            case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
                return .cannotOpen(path: path, reason: error.message ?? "\(error)")
            default: return .database(error.message ?? "\(error)")
            }
        }
        return .database(reason(error))
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }

    /// Why `directory` cannot be made, if it or one of its parents is a file (Foundation only
    /// says "error 512").
    static func notADirectory(_ directory: String) -> String? {
        var path = directory
        while !path.isEmpty, path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                guard !isDirectory.boolValue else { return nil }
                return (path == directory ? "it is a file" : "\(path) is a file") + ", not a directory; choose another --data-dir"
            }
            path = (path as NSString).deletingLastPathComponent
        }
        return nil
    }
}
