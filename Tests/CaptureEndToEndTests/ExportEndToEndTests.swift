import CaptureCore
import CaptureTransfer
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `capture export` and `capture import` on the ride fixtures, through the built binary.
@Suite struct ExportEndToEndTests {
    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("capture-export-\(UUID().uuidString)-\(name)").path
    }

    @Test func bicycleExportImportRoundTripKeepsEverything() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).stdout == "1\n")
        let path = temporary("bicycle.ccyf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let export = try cli.run(["export", "1", "--format", "cyface", "-o", path])
        #expect(export.status == 0, "\(export.stderr)")
        // Said, as `capture surface -o` says it (issue 46: export printed nothing).
        #expect(export.stdout == "wrote \(path)\n")
        // The same bytes as the cache file, which the upload sends.
        let cached = try #require(FileManager.default.contents(atPath: cli.dataDirectory + "/transfer/1.ccyf"))
        #expect(FileManager.default.contents(atPath: path) == cached)
        // To standard output too.
        let stdout = try Program.run(CLI.executable, ["export", "1", "--format", "cyface", "--data-dir", cli.dataDirectory])
        #expect(stdout.status == 0)
        let sameBytes = stdout.stdoutBytes == [UInt8](cached)
        #expect(sameBytes, "export to standard output differs from the cached transfer file")

        // The export of a ride recorded here is that ride: refused, naming it; --again copies it.
        let back = try cli.run(["import", path])
        #expect(back.status == 65, "\(back.stderr)")
        #expect(back.stderr.hasPrefix("capture: \(path) is already stored as measurement 1; nothing imported"), "\(back.stderr)")
        let imported = try cli.json(["import", "--again", path])
        #expect(imported["measurement"] as? Int == 2)
        #expect(imported["inPauseGaps"] as? Int == 0)

        let store = try Store(directory: cli.dataDirectory)
        let original = try store.measurement(1)
        let copy = try store.measurement(2)
        #expect(copy.status == .finished)
        #expect(copy.modality == original.modality)
        #expect(copy.startTime == original.startTime && copy.endTime == original.endTime)
        #expect(try store.tracks(of: 2) == (try store.tracks(of: 1)))
        #expect(try store.events(of: 2) == (try store.events(of: 1)))
        for track in 1...original.trackCount {
            var expected = try store.counts(of: 1, track: track)
            expected.pressure = 0  // not part of the transfer format
            #expect(try store.counts(of: 2, track: track) == expected)
        }
        let fixes = (try store.fixes(of: 1), try store.fixes(of: 2))
        #expect(fixes.0.count == fixes.1.count && !fixes.0.isEmpty)
        for (a, b) in zip(fixes.0, fixes.1) {
            #expect(a.timestamp == b.timestamp)
            #expect(abs(a.latitude - b.latitude) <= 0.5e-6 + 1e-12 && abs(a.longitude - b.longitude) <= 0.5e-6 + 1e-12)
            #expect(abs((a.speed ?? 0) - (b.speed ?? 0)) <= 0.005 + 1e-9)
            #expect(abs((a.horizontalAccuracy ?? 0) - (b.horizontalAccuracy ?? 0)) <= 0.005 + 1e-9)
        }
        for sensor in MotionSensor.allCases {
            var samples: ([MotionSample], [MotionSample]) = ([], [])
            try store.forEachBatch(of: 1, sensor: sensor) { samples.0 += try Store.samples(of: $0) }
            try store.forEachBatch(of: 2, sensor: sensor) { samples.1 += try Store.samples(of: $0) }
            // Stored batches already hold the format's integers, so the values come back exactly.
            let same = samples.0 == samples.1
            #expect(same && !samples.0.isEmpty, "\(sensor) samples differ")
        }
        // And the copy serialises to the very same bytes.
        let again = try cli.run(["export", "2", "--format", "cyface"])
        #expect(again.status == 0)
        #expect(try store.transferFile(for: 2, directory: cli.dataDirectory).sha256
            == (try store.transferFile(for: 1, directory: cli.dataDirectory)).sha256)
        // Deleting a measurement removes its cached transfer file.
        #expect(try cli.run(["delete", "2", "--yes"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/transfer/2.ccyf"))
        #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/transfer/2.ccyf.meta"))
        #expect(FileManager.default.fileExists(atPath: cli.dataDirectory + "/transfer/1.ccyf"))
    }

    @Test func gpxGeoJSONAndCSV() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).status == 0)
        let show = try cli.json(["show", "1"])
        let tracks = try #require(show["tracks"] as? [[String: Any]])

        let gpx = try cli.run(["export", "1", "--format", "gpx"])
        #expect(gpx.status == 0, "\(gpx.stderr)")
        #expect(gpx.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
        #expect(gpx.stdout.components(separatedBy: "<trkseg>").count - 1 == tracks.count)
        #expect(try XMLDocument(xmlString: gpx.stdout).rootElement()?.name == "gpx")
        let points = gpx.stdout.components(separatedBy: "<trkpt ").count - 1
        #expect(points == (show["counts"] as? [String: Any])?["locations"] as? Int)
        let cleanGPX = try cli.run(["export", "1", "--format", "gpx", "--clean"])
        #expect(cleanGPX.stdout.components(separatedBy: "<trkpt ").count - 1 < points)

        let geo = try cli.run(["export", "1", "--format", "geojson"])
        #expect(geo.status == 0, "\(geo.stderr)")
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(geo.stdout.utf8)) as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == tracks.count)
        for (feature, track) in zip(features, tracks) {
            let properties = try #require(feature["properties"] as? [String: Any])
            #expect(properties["track"] as? Int == track["number"] as? Int)
            #expect(properties["modality"] as? String == track["modality"] as? String)
            let distance = try #require(properties["distance"] as? Double)
            let shown = try #require(track["distanceMeters"] as? Double)
            #expect(abs(distance - shown) < 0.01)
            #expect((feature["geometry"] as? [String: Any])?["type"] as? String == "LineString")
            #expect((properties["start"] as? String)?.hasSuffix("Z") == true)
        }

        let directory = temporary("csv")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let csv = try cli.run(["export", "1", "--format", "csv", "-o", directory])
        #expect(csv.status == 0, "\(csv.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == ["accelerometer.csv", "gyroscope.csv", "locations.csv", "magnetometer.csv", "markers.csv", "pressure.csv"])
        let acc = try String(contentsOfFile: directory + "/accelerometer.csv", encoding: .utf8).split(separator: "\n")
        #expect(acc.first == "time_unix_ms,track,x_m_s2,y_m_s2,z_m_s2")
        #expect(acc.count - 1 == 54_000)
        let pressure = try String(contentsOfFile: directory + "/pressure.csv", encoding: .utf8).split(separator: "\n")
        #expect(pressure.count - 1 == 540)
        let value = try #require(Double(pressure[1].split(separator: ",")[1]))
        #expect(value > 80_000 && value < 110_000, "pressure in Pa")
        let stdout = try cli.run(["export", "1", "--format", "csv"])
        #expect(stdout.stdout.hasPrefix("time_unix_ms,track,latitude_deg,longitude_deg,"))
        let magnet = try cli.run(["export", "1", "--format", "csv", "--table", "magnetometer"])
        #expect(magnet.stdout.hasPrefix("time_unix_ms,track,x_uT,"))
    }

    @Test func refusalsAndErrors() throws {
        let cli = CLI()
        #expect(try cli.run(["export", "1", "--format", "gpx"]).status == 66)
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        #expect(try cli.run(["export", "9", "--format", "cyface"]).status == 66)
        #expect(try cli.run(["export", "1", "--format", "cyface", "--clean"]).status == 64)
        #expect(try cli.run(["export", "1", "--format", "pdf"]).status == 64)
        #expect(try cli.run(["export", "1", "--format", "gpx", "--table", "pressure"]).status == 64)
        // An output file in a directory that does not exist: an error, nothing written.
        let missing = temporary("nowhere") + "/out.gpx"
        let failed = try cli.run(["export", "1", "--format", "gpx", "-o", missing])
        #expect(failed.status == 74)
        #expect(failed.stderr.hasPrefix("capture: ") && failed.stderr.split(separator: "\n").count == 1)

        #expect(try cli.run(["import", "/nonexistent.ccyf"]).status == 66)
        let path = temporary("car.ccyf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try cli.run(["export", "1", "--format", "cyface", "-o", path]).status == 0)
        let good = try #require(FileManager.default.contents(atPath: path))
        let before = try cli.databaseDump()

        // Truncated compressed data.
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path))
        let truncated = try cli.run(["import", path])
        #expect(truncated.status == 65)
        #expect(truncated.stderr.contains("offset") && truncated.stderr.split(separator: "\n").count == 1, "\(truncated.stderr)")

        // A v2 file (uncompressed header 00 02).
        try Data([0x00, 0x02, 0x80, 0x01, 0x02, 0x8A, 0x01, 0x00]).write(to: URL(fileURLWithPath: path))
        let v2 = try cli.run(["import", path])
        #expect(v2.status == 65)
        #expect(v2.stderr.contains("v2") && v2.stderr.contains("offset 0"), "\(v2.stderr)")

        // Uncompressed, truncated inside the protobuf.
        let plain = try TransferFileDecoder.decompress([UInt8](good)).1
        try Data(plain.prefix(plain.count - 7)).write(to: URL(fileURLWithPath: path))
        let cut = try cli.run(["import", path])
        #expect(cut.status == 65)
        #expect(cut.stderr.contains("offset"), "\(cut.stderr)")

        // Garbage.
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: URL(fileURLWithPath: path))
        #expect(try cli.run(["import", path]).status == 65)

        // Nothing of any failed import was stored.
        #expect(try cli.databaseDump() == before)

        // The uncompressed file without its header is accepted as well (a copy of measurement 1,
        // which it is, on purpose).
        try Data(plain.dropFirst(2)).write(to: URL(fileURLWithPath: path))
        #expect(try cli.run(["import", path]).status == 65, "measurement 1's content, however packed")
        let bare = try cli.run(["import", "--again", path])
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stdout == "2\n")
    }

    /// Issue 32: `capture import ride.gpx` answered "corrupt raw deflate data".
    @Test func importOfARecordingReplayReadsPointsToReplay() throws {
        let cli = CLI()
        let gpx = Repository.fixture("golden/export/ride.gpx")
        let refused = try cli.run(["import", gpx])
        #expect(refused.status == 65)
        #expect(
            refused.stderr
                == "capture: \(gpx) is a GPX track, not a Cyface v3 transfer file; nothing imported; `capture replay \(gpx)` reads it\n")
        #expect(try cli.run(["list"]).stdout.hasPrefix("no measurements yet"), "nothing was stored")
    }

    @Test func anOpenMeasurementIsRefusedByEveryFormat() throws {
        let cli = CLI()
        let store = try Store(directory: cli.dataDirectory)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1_781_424_000_000), sources: "test")
        _ = engine.ingest(.fix(Fix(timestamp: 1_781_424_001_000, latitude: 51, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        try store.commit(engine.takeFlush(), to: id)
        for format in ["cyface", "gpx", "geojson", "csv"] {
            let refused = try cli.run(["export", "\(id)", "--format", format])
            #expect(refused.status == 3, "\(format)")
            #expect(
                refused.stderr
                    == "capture: measurement \(id) is not finished; only a finished measurement is exported or uploaded (`capture stop` it first)\n",
                "\(format)")
            #expect(refused.stdout.isEmpty, "\(format)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/transfer/\(id).ccyf"))
    }
}
