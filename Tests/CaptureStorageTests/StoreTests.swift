import CaptureCore
import CaptureTransfer
import Foundation
import Synchronization
import GRDB
import Testing

@testable import CaptureStorage

/// A fresh data directory per test, removed afterwards.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-test-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite struct StoreTests {
    let directory = TemporaryDirectory()

    func started(_ store: Store, at time: Int64 = 1_000, modality: Modality = .bicycle) throws -> (Int64, Recording) {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(modality), at: time), sources: "trace:x")
        return (id, engine)
    }

    func motion(_ count: Int, from time: Int64) -> [MotionSample] {
        (0..<count).map { MotionSample(timestamp: time + Int64($0) * 10, x: 0.001 * Double($0), y: -1.5, z: 9.81) }
    }

    @Test func migrationsCreateTheSchemaOnceAndTheDeviceIdentityIsStable() throws {
        let first = try Store(directory: directory.path)
        let device = try first.deviceID()
        #expect(UUID(uuidString: device) != nil)
        let second = try Store(directory: directory.path)
        #expect(try second.deviceID() == device)
        let tables = try second.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables.contains("measurement") && tables.contains("sensor_batch") && tables.contains("grdb_migrations"))
        let journal = try second.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "truncate")
        #expect(try fileFormat(second.path) == 1)
    }

    /// The read and write version bytes of a database file's header: 1 with a rollback
    /// journal, 2 in WAL mode.
    func fileFormat(_ path: String) throws -> UInt8 {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(20)
        #expect(header[18] == header[19])
        return header[18]
    }

    /// A store made in WAL mode by an earlier version goes over to the rollback journal when a
    /// process opens it alone; while another has it open it stays WAL and works as before.
    /// A store opened while another connection creates it (a `capture status` racing a starting
    /// recorder) waits for the migrations under their lock instead of failing half-way.
    @Test func storesOpenedWhileAnotherCreatesThemOpen() throws {
        let failures = Mutex<[String]>([])
        for round in 0..<30 {
            let path = directory.path + "/race-\(round)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do { _ = try Store(directory: path) } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    }

    @Test func aWALStoreIsConvertedWhenOpenedAlone() throws {
        let path = directory.path + "/capture.sqlite"
        let id: Int64
        var engine: Recording
        do {
            (id, engine) = try started(try Store(directory: directory.path))
            let other = try DatabaseQueue(path: path)
            try other.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "UPDATE device SET device_id = device_id")
            }
            #expect(try fileFormat(path) == 2)
            // `other` keeps the WAL open: the store cannot convert it, and works regardless.
            let store = try Store(directory: directory.path)
            #expect(try fileFormat(path) == 2)
            for sample in motion(50, from: 2_000) { engine.ingest(.motion(.accelerometer, sample)) }
            try store.commit(engine.takeFlush(), to: id)
            #expect(try other.read { db in try Int.fetchOne(db, sql: "SELECT sum(count) FROM sensor_batch") } == 50)
        }
        let store = try Store(directory: directory.path)
        #expect(try fileFormat(path) == 1)
        #expect(try store.counts(of: id).accelerometer == 50)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// A second Store of the same process (the foreground recorder opens one to print its
    /// report) must leave the first one's SQLite locks alone. Before the fix, opening it closed a
    /// descriptor of the database, which released the first connection's POSIX locks; the next
    /// process to close its connection (`capture status`, here sqlite3) then took itself for the
    /// last one and deleted the WAL, and the first Store's later commits went to a deleted file
    /// (in WAL mode, as stores were then; with a rollback journal, lost locks would let another
    /// process write under it).
    @Test func aSecondStoreInTheSameProcessLeavesTheFirstOnesCommitsVisible() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        do {
            let second = try Store(directory: directory.path)
            _ = try second.deviceID()
        }
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [directory.path + "/capture.sqlite", "SELECT count(*) FROM measurement;"]
        sqlite.standardOutput = FileHandle.nullDevice
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        for sample in motion(50, from: 2_000) { engine.ingest(.motion(.accelerometer, sample)) }
        try store.commit(engine.takeFlush(), to: id)
        #expect(try Store(directory: directory.path).counts(of: id).accelerometer == 50)
    }

    /// One clock per measurement: the host-clock rows move, the fixes (GNSS time) stay, and
    /// the correction is recorded with them.
    @Test func aClockCorrectionMovesHostTimesButNotFixes() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store, at: 1_000)
        for sample in motion(100, from: 1_000) { engine.ingest(.motion(.accelerometer, sample)) }
        engine.ingest(.fix(Fix(timestamp: 86_401_500, latitude: 51, longitude: 13, horizontalAccuracy: 5)))
        engine.ingest(.pressure(PressureSample(timestamp: 1_500, hectopascals: 1_000)))
        try store.commit(engine.takeFlush(), to: id)
        #expect(try store.clockCorrection(of: id) == nil)
        func samples() throws -> [MotionSample] {
            var samples: [MotionSample] = []
            try store.forEachBatch(of: id, sensor: .accelerometer) { samples += try Store.samples(of: $0) }
            return samples
        }
        let before = try samples()

        try store.applyClockCorrection(86_400_000, to: id, motion: true)
        #expect(try store.clockCorrection(of: id) == 86_400_000)
        let events = try store.events(of: id)
        #expect(events.map(\.timestamp).allSatisfy { $0 == 86_401_000 })
        #expect(try store.fixes(of: id).map(\.timestamp) == [86_401_500])
        #expect(try store.pressures(of: id).map(\.timestamp) == [86_401_500])
        let times = try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT first_ts FROM sensor_batch UNION ALL SELECT last_ts FROM sensor_batch")
        }
        #expect(times == [86_401_000, 86_401_990])
        let start = try store.read { db in try Int64.fetchOne(db, sql: "SELECT start_ts FROM measurement") }
        #expect(start == 86_401_000)
        let track = try store.read { db in try Int64.fetchOne(db, sql: "SELECT start_ts FROM track") }
        #expect(track == 86_401_000)
        // The samples inside the batch moved too, and nothing else about them.
        #expect(try samples() == before.map { MotionSample(timestamp: $0.timestamp + 86_400_000, x: $0.x, y: $0.y, z: $0.z) })

        try store.recordClockCorrection(0, of: id)
        #expect(try store.clockCorrection(of: id) == 0)
        #expect(try store.fixes(of: id).map(\.timestamp) == [86_401_500])
    }

    @Test func migrationV3KeepsEveryRowAndNumbersNewOnesAfterThem() throws {
        // A database as version 2 left it: two measurements whose rows interleave (rowids are
        // table-wide there), each with fixes, pressure readings and batches of two sensors.
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: directory.path + "/capture.sqlite")
        try Schema.migrator.migrate(queue, upTo: "v2: upload state")
        try queue.write { db in
            for id in 1...2 {
                try db.execute(
                    sql: "INSERT INTO measurement (id, status, modality, start_ts, track_count) VALUES (?, 'finished', 'CAR', 0, 1)",
                    arguments: [id])
            }
            for row in 0..<6 {
                let measurement = row % 2 + 1
                try db.execute(
                    sql: "INSERT INTO location (measurement_id, track, ts, lat, lon, speed) VALUES (?, 1, ?, ?, 13.7, 4.5)",
                    arguments: [measurement, 1_000 * row, 51.0 + Double(row) / 100])
                try db.execute(
                    sql: "INSERT INTO pressure (measurement_id, track, ts, hpa) VALUES (?, 1, ?, ?)",
                    arguments: [measurement, 1_000 * row, 1_000.0 + Double(row)])
                try db.execute(
                    sql: """
                        INSERT INTO sensor_batch (measurement_id, track, sensor, first_ts, last_ts, count, data)
                        VALUES (?, 1, ?, ?, ?, 1, ?)
                        """,
                    arguments: [
                        measurement, row / 2 % 2 + 1, 1_000 * row, 1_000 * row,
                        Data(try CyfaceBatch.encode([MotionSample(timestamp: Int64(1_000 * row), x: 0, y: 0, z: 9.81)], sensor: .accelerometer)),
                    ])
            }
        }
        try queue.close()

        let store = try Store(directory: directory.path)
        #expect(try store.integrityCheck() == "ok")
        for measurement in Int64(1)...2 {
            let rows = (0..<6).filter { $0 % 2 + 1 == measurement }
            #expect(try store.fixes(of: measurement).map(\.timestamp) == rows.map { Int64(1_000 * $0) })
            #expect(try store.fixes(of: measurement).map(\.latitude) == rows.map { 51.0 + Double($0) / 100 })
            #expect(try store.pressures(of: measurement).map(\.hectopascals) == rows.map { 1_000.0 + Double($0) })
            #expect(try store.counts(of: measurement).accelerometer + store.counts(of: measurement).gyroscope == 3)
        }
        // Rows added after the migration are numbered after the measurement's last one.
        var flush = Flush(track: 1, state: .capturing(track: 1), modality: .car)
        flush.fixes = [Fix(timestamp: 9_000, latitude: 52, longitude: 13)]
        flush.pressures = [PressureSample(timestamp: 9_000, hectopascals: 990)]
        try store.commit(flush, to: 2)
        let numbers = try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM location WHERE measurement_id = 2 ORDER BY id")
        }
        #expect(numbers.count == 4 && numbers.last! > numbers.dropLast().max()!)
        #expect(try store.pressures(of: 2).last?.hectopascals == 990)
    }

    @Test func anUnknownStoredStatusIsAnErrorNotFinished() throws {
        let store = try Store(directory: directory.path)
        let (id, _) = try started(store)
        try store.queue.writeWithoutTransaction { db in
            // The schema's CHECK keeps such a row out; a damaged or newer database may still have one.
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: "UPDATE measurement SET status = 'archived' WHERE id = ?", arguments: [id])
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
        }
        #expect(throws: StoreError.corrupt(path: store.path, reason: "measurement \(id) has the unknown status 'archived'")) {
            try store.measurement(id)
        }
        #expect(throws: StoreError.self) { try store.measurements() }
    }

    @Test func measurementStatusMatchesTheLifecycle() {
        #expect(Lifecycle.State.capturing(track: 2).phase == .capturing)
        #expect(Lifecycle.State.paused(track: 1).phase == .paused)
        #expect(Lifecycle.State.finished(tracks: 3).phase == .finished)
        #expect(Lifecycle.State.idle.phase == .idle)
        #expect(MeasurementState.storedStates.map(\.rawValue) == ["capturing", "paused", "finished"])
        #expect(MeasurementState.paused.lifecycleState(tracks: 4) == .paused(track: 4))
        #expect(MeasurementState.interrupted.lifecycleState(tracks: 4) == nil)
        #expect(MeasurementState.storedStates.filter(\.isOpen) == [.capturing, .paused])
        #expect(MeasurementState.capturing.seen(id: 1, held: nil) == .interrupted)
        #expect(MeasurementState.paused.seen(id: 1, held: HeldMeasurement(id: 1, state: .paused)) == .paused)
        #expect(MeasurementState.finished.seen(id: 1, held: nil) == .finished)
        // Issue 42: a recorder that holds another measurement (it started after a power cut)
        // does not make the one whose recorder died `capturing`; the holder's own state wins.
        #expect(MeasurementState.capturing.seen(id: 1, held: HeldMeasurement(id: 2, state: .capturing)) == .interrupted)
        #expect(MeasurementState.capturing.seen(id: 1, held: HeldMeasurement(id: 1, state: .paused)) == .paused)
        #expect(MeasurementState.capturing.seen(id: 1, held: HeldMeasurement(id: 1, state: .idle)) == .interrupted)
    }

    @Test func beginRecordsStartAndModalityAndTrackOne() throws {
        let store = try Store(directory: directory.path)
        let (id, _) = try started(store)
        #expect(id == 1)
        let record = try store.measurement(id)
        #expect(record.status == .capturing)
        #expect(record.modality == "BICYCLE")
        #expect(record.startTime == 1_000)
        #expect(try store.events(of: id).map(\.type) == [.lifecycleStart, .modalityTypeChange])
        #expect(try store.tracks(of: id) == [TrackRecord(number: 1, startTime: 1_000, endTime: nil)])
        #expect(try store.openMeasurement()?.id == id)
    }

    @Test func atMostOneOpenMeasurement() throws {
        let store = try Store(directory: directory.path)
        let (id, _) = try started(store)
        #expect(throws: StoreError.alreadyOpen(id)) { _ = try started(store) }
        #expect(try store.measurements().count == 1)
    }

    @Test func oneRowPerSensorPerFlushAndBatchesSplitAt800() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        for sample in motion(100, from: 1_000) { engine.ingest(.motion(.accelerometer, sample)) }
        for sample in motion(1_000, from: 1_000) { engine.ingest(.motion(.gyroscope, sample)) }
        try store.commit(engine.takeFlush(), to: id)
        var rows: [MotionSensor: [Int]] = [:]
        for sensor in MotionSensor.allCases {
            try store.forEachBatch(of: id, sensor: sensor) { rows[sensor, default: []].append($0.count) }
        }
        #expect(rows[.accelerometer] == [100])
        #expect(rows[.gyroscope] == [800, 200])
        #expect(rows[.magnetometer] == nil)
        #expect(try store.counts(of: id).gyroscope == 1_000)
    }

    @Test func storedBatchesDecodeToTheSamplesWithinTheFormatsPrecision() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let samples = [
            MotionSample(timestamp: 1_000, x: 9.8066, y: -0.0005, z: 0.00049),
            MotionSample(timestamp: 1_010, x: -2.0005, y: 1234.5678, z: 0),
        ]
        for sample in samples { engine.ingest(.motion(.magnetometer, sample)) }
        try store.commit(engine.takeFlush(), to: id)
        var decoded: [MotionSample] = []
        try store.forEachBatch(of: id, sensor: .magnetometer) { decoded += try Store.samples(of: $0) }
        #expect(decoded.count == 2)
        for (a, b) in zip(samples, decoded) {
            #expect(a.timestamp == b.timestamp)
            // Magnetometer values are kept in units of 10 nT (µT × 100).
            #expect(abs(a.x - b.x) <= 0.005 && abs(a.y - b.y) <= 0.005 && abs(a.z - b.z) <= 0.005)
        }
    }

    @Test func aFailedFlushLeavesNothingOfItBehind() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        engine.ingest(.fix(Fix(timestamp: 1_001, latitude: 51, longitude: 13)))
        engine.ingest(.pressure(PressureSample(timestamp: 1_002, hectopascals: 1000)))
        var flush = try engine.apply(.pause, at: 1_004)
        // A value that cannot be encoded makes the whole flush fail (the engine's gate keeps
        // such samples out; the store must stay atomic for any flush all the same)…
        flush.motion.accelerometer = [MotionSample(timestamp: 1_003, x: .infinity, y: 0, z: 0)]
        #expect(throws: StoreError.self) { try store.commit(flush, to: id) }
        // …and none of it is stored: not the fix, not the pressure, not the pause.
        #expect(try store.counts(of: id) == SampleCounts())
        #expect(try store.events(of: id).count == 2)
        #expect(try store.measurement(id).status == .capturing)
    }

    @Test func eventsMaintainTracksAndStatus() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        engine.ingest(.fix(Fix(timestamp: 1_500, latitude: 51, longitude: 13)))
        try store.commit(try engine.apply(.pause, at: 2_000), to: id)
        #expect(try store.measurement(id).status == .paused)
        try store.commit(try engine.apply(.resume, at: 3_000), to: id)
        engine.ingest(.fix(Fix(timestamp: 3_500, latitude: 51.1, longitude: 13)))
        try store.commit(try engine.apply(.modality(.walking), at: 3_600), to: id)
        try store.commit(try engine.apply(.stop, at: 4_000), to: id)
        let record = try store.measurement(id)
        #expect(record.status == .finished)
        #expect(record.endTime == 4_000)
        #expect(record.trackCount == 2)
        #expect(
            try store.tracks(of: id) == [
                TrackRecord(number: 1, startTime: 1_000, endTime: 2_000),
                TrackRecord(number: 2, startTime: 3_000, endTime: 4_000),
            ])
        #expect(try store.fixes(of: id, track: 1).map(\.timestamp) == [1_500])
        #expect(try store.fixes(of: id, track: 2).map(\.timestamp) == [3_500])
        #expect(try store.currentModality(of: id) == .walking)
        #expect(try store.lastTimestamp(of: id) == 4_000)
        #expect(try store.openMeasurement() == nil)
    }

    @Test func idsNeverRepeatAfterADelete() throws {
        let store = try Store(directory: directory.path)
        var (first, engine) = try started(store)
        try store.commit(try engine.apply(.stop, at: 2_000), to: first)
        try store.delete(first)
        #expect(throws: StoreError.measurementNotFound(first)) { try store.measurement(first) }
        let (second, _) = try started(store)
        #expect(second == first + 1)
        let orphans = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE measurement_id = ?", arguments: [first]) }
        #expect(orphans == 0)
        #expect(throws: StoreError.measurementNotFound(99)) { try store.delete(99) }
    }

    @Test func anEmptyFlushWritesNothing() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let before = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        try store.commit(engine.takeFlush(), to: id)
        let after = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        #expect(before == after)
        #expect(try store.integrityCheck() == "ok")
    }
}
