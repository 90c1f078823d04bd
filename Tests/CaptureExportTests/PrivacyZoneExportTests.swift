import CaptureCore
import CaptureTransfer
import CaptureExport
import CaptureStorage
import Foundation
import Testing

/// `privacy.zones`: what they hide is left out of the transfer file and every export; the store
/// keeps everything.
@Suite struct PrivacyZoneExportTests {
    static let base: Int64 = 1_700_000_000_000

    /// A 60 s ride heading east, a fix a second (about 7 m apart), the accelerometer at 50 Hz
    /// and pressure at 1 Hz, committed once a second (one batch per second and sensor).
    static func ride(in store: Store) throws -> Int64 {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: base), sources: "test")
        for second in 0..<60 {
            let t = base + Int64(second) * 1_000
            engine.ingest(.fix(Fix(timestamp: t, latitude: 51.05, longitude: 13.73 + Double(second) * 1e-4, horizontalAccuracy: 4, speed: 7)))
            engine.ingest(.pressure(PressureSample(timestamp: t + 500, hectopascals: 1_000 + Double(second) / 10)))
            for tick in 0..<50 {
                engine.ingest(.motion(.accelerometer, MotionSample(timestamp: t + Int64(tick) * 20, x: Double(second), y: Double(tick), z: 9.81)))
            }
            try store.commit(engine.takeFlush(), to: id)
        }
        try store.commit(try engine.apply(.stop, at: base + 60_000), to: id)
        return id
    }

    /// Fix 0…2 (a zone of 15 m at the start) and 21…29 (30 m around fix 25) are inside.
    static let zones = [
        PrivacyZone(latitude: 51.05, longitude: 13.73, radius: 15)!,
        PrivacyZone(latitude: 51.05, longitude: 13.73 + 25e-4, radius: 30)!,
    ]
    static let hiddenFixes = Set([0, 1, 2] + Array(21...29))
    /// Hidden stretches: before fix 3, and strictly between fix 20 and fix 30.
    static func hidden(_ time: Int64) -> Bool {
        time < base + 3_000 || (time > base + 20_000 && time < base + 30_000)
    }

    @Test func theTransferFileLeavesOutTheFixesInsideAndTheSamplesOfThoseStretches() throws {
        let directory = try ExportFixtures.temporaryDirectory()
        let store = try Store(directory: directory.path)
        let id = try Self.ride(in: store)
        let plain = try store.transferFile(for: id, directory: directory.path)
        let plainDecoded = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: plain.path))))
        let filtered = try store.transferFile(for: id, directory: directory.path, privacyZones: Self.zones)
        #expect(filtered.sha256 != plain.sha256)
        let decoded = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: filtered.path))))

        let expectedFixes = plainDecoded.fixes.enumerated().filter { !Self.hiddenFixes.contains($0.offset) }.map(\.element)
        #expect(plainDecoded.fixes.count == 60)
        #expect(decoded.fixes == expectedFixes)
        let expectedSamples = plainDecoded.samples(of: .accelerometer).filter { !Self.hidden($0.timestamp) }
        #expect(plainDecoded.samples(of: .accelerometer).count == 3_000)
        #expect(decoded.samples(of: .accelerometer) == expectedSamples)
        #expect(decoded.samples(of: .accelerometer).count == 3_000 - 150 - 499)
        // Batches wholly inside a stretch are gone; the others are whole or cut.
        #expect(try #require(decoded.batches[.accelerometer]).allSatisfy { !$0.isEmpty })
        #expect(decoded.events == plainDecoded.events)
        // The store keeps everything, and without zones the original bytes come back.
        #expect(try store.fixes(of: id).count == 60)
        #expect(try store.transferFile(for: id, directory: directory.path).sha256 == plain.sha256)
        // A zone nowhere near hides nothing: the same bytes as without zones.
        let far = [PrivacyZone(latitude: 48.1, longitude: 11.5, radius: 1_000)!]
        #expect(try store.transferFile(for: id, directory: directory.path, privacyZones: far).sha256 == plain.sha256)
    }

    @Test func everyExportLeavesOutWhatTheZonesHide() throws {
        let directory = try ExportFixtures.temporaryDirectory()
        let store = try Store(directory: directory.path)
        let id = try Self.ride(in: store)
        let options = ExportOptions(dataDirectory: directory.path, privacyZones: Self.zones)
        let times = (0..<60).filter { !Self.hiddenFixes.contains($0) }.map { Self.base + Int64($0) * 1_000 }

        let gpx = directory.path + "/ride.gpx"
        try GPXExporter().export(id, from: store, options: options, to: .file(gpx))
        let gpxText = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(gpxText.components(separatedBy: "<trkpt ").count - 1 == times.count)
        #expect(!gpxText.contains(#"lon="13.7300000""#) && !gpxText.contains(#"lon="13.7325000""#))

        let geojson = directory.path + "/ride.geojson"
        try GeoJSONExporter().export(id, from: store, options: options, to: .file(geojson))
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: geojson))) as? [String: Any]
        let feature = try #require((object?["features"] as? [[String: Any]])?.first)
        #expect((feature["properties"] as? [String: Any])?["fixes"] as? Int == times.count)

        let csv = directory.path + "/csv"
        try CSVExporter().export(id, from: store, options: options, to: .file(csv))
        func rows(_ table: String) throws -> [Int64] {
            try String(contentsOfFile: csv + "/" + table, encoding: .utf8).split(separator: "\n").dropFirst()
                .map { Int64($0.split(separator: ",")[0])! }
        }
        #expect(try rows("locations.csv") == times)
        let accelerometer = try rows("accelerometer.csv")
        #expect(accelerometer.count == 3_000 - 150 - 499 && !accelerometer.contains(where: Self.hidden))
        let pressure = try rows("pressure.csv")
        #expect(pressure == (0..<60).map { Self.base + Int64($0) * 1_000 + 500 }.filter { !Self.hidden($0) })

        // The Cyface export is the filtered transfer file.
        let cyface = directory.path + "/ride.ccyf"
        try CyfaceExporter().export(id, from: store, options: options, to: .file(cyface))
        let decoded = try TransferFileDecoder.decode([UInt8](try #require(FileManager.default.contents(atPath: cyface))))
        #expect(decoded.fixes.map(\.timestamp) == times)
    }
}
