public import CaptureCore
public import CaptureTransfer
import Crypto
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a measurement could not be serialised to a transfer file.
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The measurement is still capturing or paused; only finished measurements are serialised.
    case notFinished(Int64)
    /// A stored value cannot be represented in the transfer format (for example a 32-bit
    /// overflow of a delta); the message names it.
    case unrepresentable(Int64, String)
    /// The cache file could not be written or read.
    case io(path: String, reason: String)
    /// A transfer file given as it is (``TransferFile/init(hashing:)``) cannot be read.
    case cannotRead(path: String, reason: String)
    /// The store failed, or has no such measurement.
    case store(StoreError)

    /// One line: what happened.
    public var description: String {
        switch self {
        case .store(let error): error.description
        case .notFinished(let id):
            "measurement \(id) is not finished; only a finished measurement is exported or uploaded"
        case .unrepresentable(let id, let detail):
            "measurement \(id) cannot be written as a Cyface v3 transfer file: \(detail)"
        case .io(let path, let reason): "cannot write \(path): \(reason)"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}

extension Store {
    /// The Cyface v3 transfer file of a finished measurement, serialised on first use and cached.
    ///
    /// The file lives in `<directory>/transfer/<id>.ccyf`, next to a sidecar `<id>.ccyf.meta` that
    /// holds a fingerprint of what was serialised plus the file's size and SHA-256. A later call
    /// returns the cached file without reading the sensor data if the fingerprint still matches;
    /// otherwise it serialises again. The fingerprint covers the store's device id, the measurement
    /// row, every fix and event (their values) and, per sensor, the count, ids, lengths, sample
    /// counts and time spans of the stored batches; so a delete and re-import, or a store created
    /// anew, never returns stale bytes.
    ///
    /// Serialisation streams: the three sensors' batch bodies come from database cursors (in
    /// storage order, which is time order) straight into the compressor, so memory stays bounded
    /// by one batch, the fixes and zlib's buffers, however long the measurement. Locations and
    /// events are in time order. The file is written to a temporary file in the same directory,
    /// fsynced, renamed into place and the directory fsynced, so a reader never sees half a file.
    ///
    /// ```swift
    /// let file = try store.transferFile(for: 7, directory: dataDirectory)
    /// // file.path == "<data dir>/transfer/7.ccyf", file.size, file.sha256
    /// ```
    ///
    /// - Parameters:
    ///   - id: the measurement.
    ///   - directory: the data directory (the one the store was opened in).
    ///   - privacyZones: `privacy.zones`: what they hide (``PrivacyFilter``) is left out of the
    ///     file. Batches that reach into a hidden stretch are decoded, filtered and encoded again
    ///     (twice: once to size them before streaming); the others are copied as stored. The zones
    ///     are part of the fingerprint.
    /// - Throws: ``TransferError/notFinished(_:)`` for a capturing or paused measurement,
    ///   ``TransferError/unrepresentable(_:_:)`` for values the format cannot hold,
    ///   ``TransferError/io(path:reason:)`` for the cache file, and ``TransferError/store(_:)``
    ///   for the store's own failures (``StoreError/measurementNotFound(_:)`` among them).
    public func transferFile(
        for id: Int64, directory: String, privacyZones: [PrivacyZone] = []
    ) throws(TransferError) -> TransferFile {
        let folder = (directory as NSString).appendingPathComponent("transfer")
        let path = (folder as NSString).appendingPathComponent("\(id).ccyf")
        let metaPath = path + ".meta"
        return try readSnapshot { db throws -> TransferFile in
            let snapshot = try TransferSnapshot(db: db, id: id, privacyZones: privacyZones)
            if let cached = TransferCache.valid(path: path, metaPath: metaPath, fingerprint: snapshot.fingerprint) {
                return cached
            }
            do {
                try PrivateFiles.createDirectory(folder)
            } catch {
                throw TransferError.io(path: folder, reason: Self.reason(error))
            }
            // The old sidecar goes first: a crash after the rename below can then never pair new
            // bytes with an old fingerprint.
            TransferCache.remove(metaPath)
            let file = try AtomicFile(path: path)
            var hasher = SHA256()
            var size: Int64 = 0
            do {
                try snapshot.write(db: db) { chunk in
                    hasher.update(data: chunk)
                    size += Int64(chunk.count)
                    try file.append(chunk)
                }
                let digest = hasher.finalize().hex
                try file.commit()
                let result = TransferFile(path: path, size: size, sha256: digest)
                TransferCache.store(result, fingerprint: snapshot.fingerprint, metaPath: metaPath)
                return result
            } catch let error as CyfaceError {
                file.discard()
                throw TransferError.unrepresentable(id, error.description)
            } catch {
                file.discard()
                throw error
            }
        }
    }
}

extension Store {
    /// Like `read`, with typed errors: ``TransferError`` from `body` as it is, everything else
    /// (SQLite, ``StoreError``) as ``TransferError/store(_:)``.
    func readSnapshot<T>(_ body: (Database) throws -> T) throws(TransferError) -> T {
        do {
            return try queue.read(body)
        } catch let error as TransferError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(Self.map(error, path: path))
        }
    }
}

/// Everything of one measurement that goes into its transfer file except the batch bodies, read in
/// one transaction, plus a fingerprint of all of it.
struct TransferSnapshot {
    let id: Int64
    let fixes: [Fix]
    let events: [Event]
    let summaries: [MotionSensor: CyfaceBatchSummary]
    let fingerprint: String
    /// What the privacy zones hide.
    let privacy: PrivacyFilter
    /// The batches that reach into a hidden stretch (filtered while streaming).
    let filteredBatches: Set<Int64>
    /// The lowest and highest batch id of each sensor that has batches.
    let batchIDs: [MotionSensor: ClosedRange<Int64>]

    /// Version of the serialiser's output; bump it when the bytes written for the same data change.
    static let writerVersion = "capture ccyf writer 1"

    init(db: Database, id: Int64, privacyZones: [PrivacyZone] = []) throws {
        self.id = id
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT status, modality, start_ts, end_ts, track_count FROM measurement WHERE id = ?",
                arguments: [id])
        else { throw StoreError.measurementNotFound(id) }
        let status: String = row[MeasurementRow.Columns.status]
        guard MeasurementState(rawValue: status) == .finished else { throw TransferError.notFinished(id) }
        var hasher = SHA256()
        func feed(_ text: String) { hasher.update(data: Data((text + "\n").utf8)) }
        feed(Self.writerVersion)
        feed(try String.fetchOne(db, sql: "SELECT device_id FROM device WHERE id = 1") ?? "")
        let (modality, start, end, tracks): (String, Int64, Int64?, Int) = (
            row[MeasurementRow.Columns.modality], row[MeasurementRow.Columns.startTime], row[MeasurementRow.Columns.endTime],
            row[MeasurementRow.Columns.trackCount]
        )
        feed("measurement \(id) \(status) \(modality) \(start) \(end ?? -1) \(tracks)")

        // In id order (the primary key's, no sort), which is time order unless a ride's clock
        // went back; only then are the fixes sorted by time (and id, for equal times), which holds
        // them twice in memory for a moment. They are hashed in that order. Read by position
        // through SQLite's C API (DirectQuery), not as records by name: the serialiser's hot path,
        // measured (BENCHMARKS.md, "The snapshot in one scan").
        var fixes: [Fix] = []
        var inTimeOrder = true
        let rows = try DirectQuery(
            db,
            sql: """
                SELECT ts, lat, lon, altitude, horizontal_accuracy, vertical_accuracy, speed, course
                FROM location WHERE measurement_id = ? ORDER BY id
                """, arguments: [id])
        while try rows.step() {
            let fix = Fix(
                timestamp: rows.int64(0), latitude: rows.double(1), longitude: rows.double(2), altitude: rows.optionalDouble(3),
                horizontalAccuracy: rows.optionalDouble(4), verticalAccuracy: rows.optionalDouble(5),
                speed: rows.optionalDouble(6), course: rows.optionalDouble(7))
            if let last = fixes.last, last.timestamp > fix.timestamp { inTimeOrder = false }
            fixes.append(fix)
        }
        if !inTimeOrder {
            fixes = fixes.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        }
        var fixBytes: [UInt8] = []
        fixBytes.reserveCapacity(1 << 16)
        func bits(_ value: Double?) -> UInt64 { value.map(\.bitPattern) ?? 0x7FF8_DEAD_0000_0001 }
        for fix in fixes {
            for word in [
                UInt64(bitPattern: fix.timestamp), fix.latitude.bitPattern, fix.longitude.bitPattern,
                bits(fix.horizontalAccuracy), bits(fix.speed),
            ] {
                withUnsafeBytes(of: word.littleEndian) { fixBytes.append(contentsOf: $0) }
            }
            if fixBytes.count >= 1 << 16 {
                hasher.update(data: fixBytes)
                fixBytes.removeAll(keepingCapacity: true)
            }
        }
        hasher.update(data: fixBytes)
        feed("fixes \(fixes.count)")
        let privacy = PrivacyFilter(zones: privacyZones, fixes: fixes)
        self.privacy = privacy
        self.fixes = privacy.hidesNothing ? fixes : fixes.filter { !privacy.hides($0) }
        // Only zones that hide something change the bytes (and so the fingerprint).
        if !privacy.hidesNothing {
            feed("privacy " + privacyZones.map { "\($0.latitude) \($0.longitude) \($0.radius)" }.joined(separator: ";"))
        }

        events = try EventRow.fetchAll(
            db, sql: "SELECT ts, type, value FROM event WHERE measurement_id = ? ORDER BY ts, id", arguments: [id]
        ).compactMap(\.event)
        feed("events \(events.count)")
        for event in events { feed("\(event.timestamp) \(event.type.rawValue) \(event.value.map { "=" + $0 } ?? "-")") }

        let tallies = try Self.tallies(db, measurement: id)
        var summaries: [MotionSensor: CyfaceBatchSummary] = [:]
        var filtered = Set<Int64>()
        for sensor in MotionSensor.allCases {
            let tally = tallies[sensor] ?? BatchTally()
            var summary = tally.summary
            feed("sensor \(sensor.rawValue) " + tally.fingerprintFields)
            // Batches reaching into a hidden stretch: sized as they will be written, filtered.
            if !privacy.hidesNothing {
                var kept = CyfaceBatchSummary()
                var removedBodies = 0
                var removedFramed = 0
                var removedCount = 0
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, first_ts, last_ts, length(data) AS length FROM sensor_batch
                        WHERE measurement_id = ? AND sensor = ? ORDER BY id
                        """,
                    arguments: [id, sensor.rawValue])
                while let row = try rows.next() {
                    guard privacy.overlaps(first: row[BatchRow.Columns.firstTime], last: row[BatchRow.Columns.lastTime])
                    else { continue }
                    let batch: Int64 = row[BatchRow.Columns.id]
                    let length: Int = row["length"]
                    filtered.insert(batch)
                    removedCount += 1
                    removedBodies += length
                    removedFramed += CyfaceBatchSummary.framedSize(bodyByteCount: length)
                    let data = try Data.fetchOne(db, sql: "SELECT data FROM sensor_batch WHERE id = ?", arguments: [batch]) ?? Data()
                    if let body = try Self.filtered([UInt8](data), sensor: sensor, privacy: privacy) {
                        kept.add(bodyByteCount: body.count)
                    }
                }
                summary = CyfaceBatchSummary(
                    batchCount: summary.batchCount - removedCount + kept.batchCount,
                    bodyByteCount: summary.bodyByteCount - removedBodies + kept.bodyByteCount,
                    fieldContentByteCount: summary.fieldContentByteCount - removedFramed + kept.fieldContentByteCount)
            }
            summaries[sensor] = summary
        }
        self.summaries = summaries
        batchIDs = tallies.compactMapValues(\.ids)
        filteredBatches = filtered
        fingerprint = hasher.finalize().hex
    }

    /// Each sensor's figures, added up in one pass over the measurement's batches in id order.
    /// length() of a BLOB does not copy its content. Columns by position (DirectQuery): the
    /// serialiser's hot path (BENCHMARKS.md, "The snapshot in one scan").
    static func tallies(_ db: Database, measurement id: Int64) throws -> [MotionSensor: BatchTally] {
        var tallies: [MotionSensor: BatchTally] = [:]
        guard let range = try idRange(db, measurement: id) else { return tallies }
        let rows = try DirectQuery(
            db,
            sql: """
                SELECT sensor, length(data), id, count, first_ts, last_ts FROM sensor_batch NOT INDEXED
                WHERE id BETWEEN ? AND ? AND measurement_id = ?
                """, arguments: [range.lowerBound, range.upperBound, id])
        while try rows.step() {
            guard let sensor = MotionSensor(rawValue: Int(rows.int64(0))) else { continue }
            tallies[sensor, default: BatchTally()].add(
                length: Int(rows.int64(1)), id: rows.int64(2), count: rows.int64(3), first: rows.int64(4), last: rows.int64(5))
        }
        return tallies
    }

    /// The lowest and highest id of the measurement's batches (from the index), `nil` for none.
    /// The batches of one measurement are written together, so scanning the table by id between
    /// the two visits them in storage order without a lookup from the index per batch; the other
    /// measurement rows a concurrent import may have put in between are only skipped.
    static func idRange(_ db: Database, measurement id: Int64) throws -> ClosedRange<Int64>? {
        let query = try DirectQuery(db, sql: "SELECT min(id), max(id), count(*) FROM sensor_batch WHERE measurement_id = ?", arguments: [id])
        guard try query.step(), query.int64(2) > 0 else { return nil }
        return query.int64(0)...query.int64(1)
    }

    /// A batch body without its samples in hidden stretches; `nil` when none is left.
    static func filtered(_ body: [UInt8], sensor: MotionSensor, privacy: PrivacyFilter) throws -> [UInt8]? {
        let samples = try CyfaceBatch.decode(body, sensor: sensor).filter { !privacy.hides(time: $0.timestamp) }
        return samples.isEmpty ? nil : try CyfaceBatch.encode(samples, sensor: sensor)
    }

    /// Streams the transfer file (raw deflate level 5) to `sink`, reading the batch bodies of each
    /// sensor from a cursor opened when the writer reaches that sensor.
    func write(db: Database, to sink: ([UInt8]) throws -> Void) throws {
        var sources: [CyfaceSensorBatches] = []
        for sensor in MotionSensor.allCases {
            let summary = summaries[sensor] ?? CyfaceBatchSummary()
            if privacy.hidesNothing {
                // Read by id between the sensor's first and last batch (see idRange(_:measurement:)),
                // each blob copied once, straight from the statement (DirectQuery: measured,
                // BENCHMARKS.md, "The snapshot in one scan").
                var cursor: DirectQuery?
                let ids = batchIDs[sensor]
                sources.append(
                    CyfaceSensorBatches(sensor: sensor, summary: summary) {
                        guard let ids else { return nil }
                        if cursor == nil {
                            cursor = try DirectQuery(
                                db,
                                sql: """
                                    SELECT data FROM sensor_batch NOT INDEXED
                                    WHERE id BETWEEN ? AND ? AND measurement_id = ? AND sensor = ? ORDER BY id
                                    """, arguments: [ids.lowerBound, ids.upperBound, id, Int64(sensor.rawValue)])
                        }
                        guard let cursor, try cursor.step() else { return nil }
                        return cursor.bytes(0)
                    })
                continue
            }
            // With privacy zones: the batches that reach into a hidden stretch are filtered
            // again exactly as they were sized; emptied ones are left out.
            var cursor: RowCursor?
            let (privacy, filteredBatches) = (privacy, filteredBatches)
            sources.append(
                CyfaceSensorBatches(sensor: sensor, summary: summary) {
                    if cursor == nil {
                        cursor = try Row.fetchCursor(
                            db,
                            sql: "SELECT id, data FROM sensor_batch WHERE measurement_id = ? AND sensor = ? ORDER BY id",
                            arguments: [id, sensor.rawValue])
                    }
                    while let row = try cursor?.next() {
                        let data: Data = row[BatchRow.Columns.data]
                        guard filteredBatches.contains(row[BatchRow.Columns.id]) else { return [UInt8](data) }
                        if let body = try Self.filtered([UInt8](data), sensor: sensor, privacy: privacy) { return body }
                    }
                    return nil
                })
        }
        try TransferFileWriter.write(fixes: fixes, sensors: sources, events: events, compression: .cyface, to: sink)
    }
}
