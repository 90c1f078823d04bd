import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureStorage

/// Migration "v7: fix quality": fixes stored before it keep their values and have no quality;
/// fixes committed after it keep satellites, DOPs and mode.
@Suite struct FixQualityStoreTests {
    let directory = TemporaryDirectory()

    @Test func oldFixesHaveNoQualityAndNewOnesKeepIt() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: directory.path + "/capture.sqlite")
        try Schema.migrator.migrate(queue, upTo: "v4: where an imported measurement came from")
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO measurement (id, status, modality, start_ts, track_count) VALUES (1, 'capturing', 'CAR', 0, 1)")
            try db.execute(
                sql: """
                    INSERT INTO location (measurement_id, id, track, ts, lat, lon, horizontal_accuracy, speed)
                    VALUES (1, 1, 1, 1000, 51.0, 13.7, 5.0, 4.5)
                    """)
        }
        try queue.close()

        let store = try Store(directory: directory.path)
        let old = try #require(try store.fixes(of: 1).first)
        #expect(old == Fix(timestamp: 1_000, latitude: 51, longitude: 13.7, horizontalAccuracy: 5, speed: 4.5))
        #expect(!old.hasQuality)

        var flush = Flush(track: 1, state: .capturing(track: 1), modality: .car)
        let full = Fix(
            timestamp: 2_000, latitude: 51.001, longitude: 13.7, satellites: 11, hdop: 0.8, vdop: 1.25, pdop: 1.5,
            mode: .threeD)
        let partial = Fix(timestamp: 3_000, latitude: 51.002, longitude: 13.7, satellites: 4, mode: .twoD)
        flush.fixes = [full, partial]
        try store.commit(flush, to: 1)
        #expect(try store.fixes(of: 1) == [old, full, partial])
        let stored = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT satellites, fix_mode FROM location WHERE measurement_id = 1 ORDER BY id")
        }
        #expect(stored.map { $0[0] as Int? } == [nil, 11, 4])
        #expect(stored.map { $0[1] as Int? } == [nil, 3, 2])
    }
}
