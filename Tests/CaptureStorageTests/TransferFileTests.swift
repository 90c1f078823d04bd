import CaptureCore
import CaptureTransfer
import Crypto
import Foundation
import GRDB
import Testing

@testable import CaptureStorage

/// Builds small finished measurements through the recording engine, as the recorder does.
enum Measurements {
    /// A two-track measurement: fixes, all three sensors (one flush of 1 000 gyroscope samples,
    /// split at 800), a pause, a resume, a modality change, a stop.
    static func twoTracks(in store: Store, base: Int64 = 1_700_000_000_000) throws -> Int64 {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: base), sources: "test")
        for i in 0..<1_000 {
            let t = base + Int64(i) * 10
            engine.ingest(.motion(.accelerometer, MotionSample(timestamp: t, x: 0.1 * Double(i % 7), y: -9.81, z: 0.25)))
            engine.ingest(.motion(.gyroscope, MotionSample(timestamp: t, x: 0.001 * Double(i), y: 0.5, z: -0.5)))
            if i % 2 == 0 {
                engine.ingest(.motion(.magnetometer, MotionSample(timestamp: t, x: 20.5, y: -40.25, z: Double(i) / 100)))
            }
            if i % 100 == 0 {
                engine.ingest(
                    .fix(
                        Fix(
                            timestamp: t, latitude: 51.05 + Double(i) * 1e-5, longitude: 13.73 + Double(i) * 1e-5,
                            altitude: 120, horizontalAccuracy: 4.5, speed: 5.25)))
            }
        }
        try store.commit(engine.takeFlush(), to: id)
        try store.commit(try engine.apply(.pause, at: base + 10_000), to: id)
        try store.commit(try engine.apply(.resume, at: base + 20_000), to: id)
        for i in 0..<300 {
            let t = base + 20_000 + Int64(i) * 10
            engine.ingest(.motion(.accelerometer, MotionSample(timestamp: t, x: 1, y: 2, z: 3)))
            if i % 100 == 0 {
                engine.ingest(.fix(Fix(timestamp: t, latitude: 51.06, longitude: 13.74, horizontalAccuracy: 3, speed: 6)))
            }
        }
        try store.commit(try engine.apply(.modality(.walking), at: base + 22_000), to: id)
        try store.commit(try engine.apply(.stop, at: base + 23_000), to: id)
        return id
    }
}

@Suite struct TransferFileTests {
    let directory = TemporaryDirectory()

    func sha256(_ path: String) throws -> String {
        let data = try #require(FileManager.default.contents(atPath: path))
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test func serialisesAFinishedMeasurementThatDecodesToTheStoredData() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        let file = try store.transferFile(for: id, directory: directory.path)
        #expect(file.path == directory.path + "/transfer/\(id).ccyf")
        let bytes = try #require(FileManager.default.contents(atPath: file.path))
        #expect(Int64(bytes.count) == file.size)
        #expect(try sha256(file.path) == file.sha256)

        let decoded = try TransferFileDecoder.decode([UInt8](bytes))
        #expect(decoded.compression == .rawDeflate)
        #expect(decoded.hasHeader && decoded.formatVersion == 3)
        #expect(decoded.fixes.map(\.timestamp) == (try store.fixes(of: id)).map(\.timestamp))
        #expect(decoded.events == (try store.events(of: id)))
        let counts = try store.counts(of: id)
        for sensor in MotionSensor.allCases {
            #expect(decoded.samples(of: sensor).count == counts[sensor])
            var stored: [[MotionSample]] = []
            try store.forEachBatch(of: id, sensor: sensor) { stored.append(try Store.samples(of: $0)) }
            let same = decoded.batches[sensor] ?? [] == stored
            #expect(same, "\(sensor) batches differ")
        }
        #expect(decoded.batches[.gyroscope]?.map(\.count) == [800, 200])
    }

    @Test func theSameBytesAsTheInMemorySerialiser() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        let file = try store.transferFile(for: id, directory: directory.path)
        let streamed = try TransferFileDecoder.decompress([UInt8](try #require(FileManager.default.contents(atPath: file.path)))).1
        // The same stored bodies through the writer in memory, uncompressed.
        var sources: [CyfaceSensorBatches] = []
        for sensor in MotionSensor.allCases {
            var bodies: [[UInt8]] = []
            try store.forEachBatch(of: id, sensor: sensor) { bodies.append($0.data) }
            sources.append(CyfaceSensorBatches(sensor: sensor, bodies: bodies))
        }
        var memory: [UInt8] = []
        try TransferFileWriter.write(
            fixes: try store.fixes(of: id), sensors: sources, events: try store.events(of: id), compression: .none
        ) { memory += $0 }
        #expect(streamed.count == memory.count)
        let same = streamed == memory
        #expect(same, "the streamed file differs from the in-memory serialisation")
    }

    @Test func theCacheIsReusedUntilTheMeasurementChanges() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        let first = try store.transferFile(for: id, directory: directory.path)
        let inode = try FileManager.default.attributesOfItem(atPath: first.path)[.systemFileNumber] as? NSNumber
        let again = try store.transferFile(for: id, directory: directory.path)
        #expect(again == first)
        #expect(try FileManager.default.attributesOfItem(atPath: first.path)[.systemFileNumber] as? NSNumber == inode)

        // A change the recorder never makes to a finished measurement is still noticed.
        try store.write { db in
            try db.execute(sql: "UPDATE location SET lat = lat + 0.001 WHERE measurement_id = ?", arguments: [id])
        }
        let changed = try store.transferFile(for: id, directory: directory.path)
        #expect(changed.sha256 != first.sha256)
        #expect(try sha256(changed.path) == changed.sha256)

        try store.write { db in
            try db.execute(
                sql: "DELETE FROM sensor_batch WHERE id = (SELECT max(id) FROM sensor_batch WHERE measurement_id = ?)",
                arguments: [id])
        }
        let fewer = try store.transferFile(for: id, directory: directory.path)
        #expect(fewer.sha256 != changed.sha256)

        // A damaged cache file (wrong size) is rewritten.
        try Data("junk".utf8).write(to: URL(fileURLWithPath: fewer.path))
        let repaired = try store.transferFile(for: id, directory: directory.path)
        #expect(repaired == fewer)
        #expect(try sha256(repaired.path) == fewer.sha256)
        // No temporary files are left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/transfer").sorted()
        #expect(names == ["\(id).ccyf", "\(id).ccyf.meta"])
    }

    /// The per-sensor figures are added up in Swift from one pass over the batches; they must be
    /// what SQL's aggregates give, or the fingerprints of files cached by earlier versions change.
    @Test func theBatchFiguresAreWhatTheAggregateQueriesGive() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        let empty = try Measurements.twoTracks(in: store, base: 1_800_000_000_000)
        try store.write { db in
            try db.execute(sql: "DELETE FROM sensor_batch WHERE measurement_id = ? AND sensor = 3", arguments: [empty])
        }
        for measurement in [id, empty] {
            let tallies = try store.read { db in try TransferSnapshot.tallies(db, measurement: measurement) }
            for sensor in MotionSensor.allCases {
                let expected = try store.read { db in
                    let row = try #require(
                        try Row.fetchOne(
                            db,
                            sql: """
                                SELECT count(*), COALESCE(sum(length(data)), 0),
                                    COALESCE(sum(1 + length(data) + CASE WHEN length(data) < 128 THEN 1
                                        WHEN length(data) < 16384 THEN 2 WHEN length(data) < 2097152 THEN 3
                                        WHEN length(data) < 268435456 THEN 4 ELSE 5 END), 0),
                                    COALESCE(sum(id), 0), COALESCE(max(id), 0), COALESCE(sum(count), 0),
                                    COALESCE(min(first_ts), 0), COALESCE(max(last_ts), 0), COALESCE(sum(last_ts - first_ts), 0)
                                FROM sensor_batch WHERE measurement_id = ? AND sensor = ?
                                """, arguments: [measurement, sensor.rawValue]))
                    return (0..<9).map { String(row[$0] as Int64) }.joined(separator: " ")
                }
                #expect((tallies[sensor] ?? BatchTally()).fingerprintFields == expected, "\(measurement) \(sensor)")
            }
        }
        #expect(tallies(store, empty)[.magnetometer] == nil)
    }

    /// Fixes are read in id order and sorted only when that is not time order.
    @Test func fixesStoredOutOfTimeOrderAreWrittenInTimeOrder() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        let before = try store.transferFile(for: id, directory: directory.path)
        // The first fix (at +0 s) moves to the third's time (+2 s): the second comes first, and
        // the first and third share a time, so their ids order them.
        try store.write { db in
            try db.execute(
                sql: """
                    UPDATE location SET ts = ts + 2000
                    WHERE measurement_id = ? AND id = (SELECT min(id) FROM location WHERE measurement_id = ?)
                    """, arguments: [id, id])
        }
        let expected = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT ts, lat FROM location WHERE measurement_id = ? ORDER BY ts, id", arguments: [id])
                .map { [$0[0] as Int64, Int64((($0[1] as Double) * 1e6).rounded())] }
        }
        let file = try store.transferFile(for: id, directory: directory.path)
        #expect(file.sha256 != before.sha256)
        let decoded = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: file.path))))
        #expect(decoded.fixes.map { [$0.timestamp, Int64(($0.latitude * 1e6).rounded())] } == expected)
        let times = try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT ts FROM location WHERE measurement_id = ? ORDER BY id", arguments: [id])
        }
        #expect(times != times.sorted(), "the stored fixes are out of time order")
    }

    func tallies(_ store: Store, _ id: Int64) -> [MotionSensor: BatchTally] {
        (try? store.read { db in try TransferSnapshot.tallies(db, measurement: id) }) ?? [:]
    }

    /// Batches are read by id between a measurement's first and last; an import while a ride is
    /// open puts another measurement's batches in between, which must be left out of both files.
    @Test func batchesOfAnotherMeasurementInBetweenAreLeftOut() throws {
        let store = try Store(directory: directory.path)
        let source = try Measurements.twoTracks(in: store)
        let decoded = try TransferFileDecoder.decode(
            [UInt8](try #require(FileManager.default.contents(atPath: try store.transferFile(for: source, directory: directory.path).path))))

        var engine = Recording()
        let base: Int64 = 1_750_000_000_000
        let open = try store.begin(try engine.apply(.start(.car), at: base), sources: "test")
        func flush(_ from: Int) throws {
            for i in from..<(from + 100) {
                for sensor in MotionSensor.allCases {
                    engine.ingest(.motion(sensor, MotionSample(timestamp: base + Int64(i) * 10, x: Double(i), y: 1, z: 2)))
                }
            }
            try store.commit(engine.takeFlush(), to: open)
        }
        try flush(0)
        let imported = try store.importMeasurement(decoded, sources: "import:test", duplicates: .importAgain).measurement
        try flush(100)
        try store.commit(try engine.apply(.stop, at: base + 3_000), to: open)
        let ids = try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM sensor_batch WHERE measurement_id = ? ORDER BY id", arguments: [imported])
        }
        let range = try #require(try store.read { db in try TransferSnapshot.idRange(db, measurement: open) })
        #expect(ids.allSatisfy(range.contains), "the import's batches lie between the open measurement's")

        for id in [open, imported] {
            let file = try store.transferFile(for: id, directory: directory.path)
            let back = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: file.path))))
            for sensor in MotionSensor.allCases {
                var stored: [[MotionSample]] = []
                try store.forEachBatch(of: id, sensor: sensor) { stored.append(try Store.samples(of: $0)) }
                let same = back.batches[sensor] ?? [] == stored
                #expect(same, "measurement \(id): \(sensor) batches differ")
            }
        }
        #expect(tallies(store, open).values.map(\.summary.batchCount).sorted() == [2, 2, 2])
    }

    @Test func onlyFinishedMeasurementsAreSerialised() throws {
        let store = try Store(directory: directory.path)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 5_000), sources: "test")
        #expect(throws: TransferError.notFinished(id)) { try store.transferFile(for: id, directory: directory.path) }
        #expect(throws: TransferError.store(.measurementNotFound(42))) { try store.transferFile(for: 42, directory: directory.path) }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/transfer/\(id).ccyf"))
    }

    @Test func aMeasurementWithoutSamplesStillHasLocationRecords() throws {
        let store = try Store(directory: directory.path)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 5_000), sources: "test")
        try store.commit(try engine.apply(.stop, at: 6_000), to: id)
        let file = try store.transferFile(for: id, directory: directory.path)
        let plain = try TransferFileDecoder.decompress([UInt8](try #require(FileManager.default.contents(atPath: file.path)))).1
        #expect(Array(plain.prefix(8)) == [0x00, 0x03, 0x80, 0x01, 0x03, 0x8A, 0x01, 0x00])
    }

    @Test func anUnrepresentableValueIsAnErrorAndLeavesNoFile() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        try store.write { db in
            try db.execute(sql: "UPDATE location SET lat = 5000 WHERE measurement_id = ?", arguments: [id])
        }
        #expect(throws: TransferError.self) { try store.transferFile(for: id, directory: directory.path) }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/transfer")
        #expect(names.isEmpty)
    }
}
