import CaptureCore
import CaptureTransfer
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureExport

/// Each exporter on a small ride (fixtures/export/ride.trace: two tracks, a pause, a modality
/// change, an unclean fix), byte for byte against fixtures/golden/export/, which the CLI wrote
/// before the exporters moved into this library.
@Suite struct ExporterTests {
    let store: Store
    let data: Scratch
    let out: Scratch
    var directory: String { data.path }
    var output: String { out.path }

    init() throws {
        (store, data) = try ExportFixtures.replayed("export/ride.trace")
        out = try ExportFixtures.temporaryDirectory("out")
    }

    func export(_ name: String, clean: Bool = false, to path: String) throws {
        let exporter = try #require(ExporterRegistry.standard.exporter(named: name))
        try exporter.export(1, from: store, options: ExportOptions(dataDirectory: directory, clean: clean), to: .file(path))
    }

    @Test(arguments: [("gpx", false), ("gpx", true), ("geojson", false), ("geojson", true)])
    func textFormatMatchesItsGolden(_ format: String, _ clean: Bool) throws {
        let name = "ride" + (clean ? ".clean." : ".") + format
        try export(format, clean: clean, to: output + "/" + name)
        let written = try #require(ExportFixtures.contents(output + "/" + name))
        let golden = try ExportFixtures.golden("export/" + name)
        #expect(written == golden, "\(name) differs from fixtures/golden/export/\(name)")
    }

    @Test func csvWritesEveryTableIntoADirectory() throws {
        let csv = output + "/csv/nested"
        try export("csv", to: csv)
        let names = try FileManager.default.contentsOfDirectory(atPath: csv).sorted()
        #expect(names == CSVTable.allCases.map(\.fileName).sorted())
        for table in CSVTable.allCases {
            let written = ExportFixtures.contents(csv + "/" + table.fileName)
            #expect(written == (try ExportFixtures.golden("export/ride.\(table.rawValue).csv")), "\(table)")
        }
        let clean = output + "/clean"
        try export("csv", clean: true, to: clean)
        #expect(ExportFixtures.contents(clean + "/locations.csv") == (try ExportFixtures.golden("export/ride.clean.locations.csv")))
        // --clean filters fixes only.
        #expect(ExportFixtures.contents(clean + "/accelerometer.csv") == ExportFixtures.contents(csv + "/accelerometer.csv"))
    }

    @Test func csvIntoAPathUnderAFileFails() throws {
        let file = output + "/plain"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        #expect {
            try export("csv", to: file)
        } throws: { error in
            guard case .cannotCreateDirectory(let path, _) = error as? ExportError else { return false }
            return path == file
        }
        #expect(ExportFixtures.contents(file) == Array("keep".utf8))
    }

    @Test(arguments: ["x.csv", "Tables.CSV", "new/dir/x.csv"])
    func csvToAPathNamingACSVFileIsRefusedAndCreatesNothing(_ name: String) throws {
        let path = output + "/" + name
        #expect {
            try export("csv", to: path)
        } throws: { error in
            error as? ExportError == .directoryExpected(path: path, tables: CSVTable.allCases.count)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output).isEmpty, "something was created")
        #expect(
            ExportError.directoryExpected(path: "/tmp/x.csv", tables: 5).description
                == "a CSV export writes 5 tables into a directory, and /tmp/x.csv names a .csv file; nothing was written")
    }

    @Test func cyfaceIsTheCachedTransferFile() throws {
        try export("cyface", to: output + "/ride.ccyf")
        let written = try #require(ExportFixtures.contents(output + "/ride.ccyf"))
        let cached = try store.transferFile(for: 1, directory: directory)
        #expect(ExportFixtures.contents(cached.path) == written)
        #expect(Int64(written.count) == cached.size)
        // The bytes the CLI exported before the move (and that an upload sends).
        #expect(cached.sha256 == "38302438a761dc5150d6224e9b71df450a701127a4b87e4c1a192e26626f2556")
        let decoded = try TransferFileDecoder.decode(written)
        #expect(decoded.fixes.count == (try store.counts(of: 1)).locations)
    }

    /// One rule for every format (issue 32): an open measurement is refused, nothing written.
    @Test(arguments: ["cyface", "gpx", "geojson", "csv", "svg"])
    func anOpenMeasurementIsRefusedByEveryFormat(_ name: String) throws {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1_781_424_000_000), sources: "test")
        _ = engine.ingest(.fix(Fix(timestamp: 1_781_424_001_000, latitude: 51, longitude: 13, horizontalAccuracy: 5, speed: 4)))
        try store.commit(engine.takeFlush(), to: id)
        let exporter = try #require(ExporterRegistry.standard.exporter(named: name))
        let path = output + "/open." + name
        #expect(throws: ExportError.transfer(.notFinished(id))) {
            try exporter.export(id, from: store, options: ExportOptions(dataDirectory: directory), to: .file(path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: directory + "/transfer/\(id).ccyf"))
    }

    @Test(arguments: ["cyface", "gpx", "geojson", "csv", "gpkg", "svg"])
    func anUnknownMeasurementLeavesNoFile(_ name: String) throws {
        let exporter = try #require(ExporterRegistry.standard.exporter(named: name))
        let path = output + "/never." + name
        #expect(throws: ExportError.store(.measurementNotFound(99))) {
            try exporter.export(99, from: store, options: ExportOptions(dataDirectory: directory), to: .file(path))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output).isEmpty)
    }

    @Test func aMissingDirectoryIsAWriteErrorAndCreatesNothing() throws {
        let path = output + "/missing/ride.gpx"
        #expect {
            try export("gpx", to: path)
        } throws: { error in
            guard case .cannotWrite(let failed, _) = error as? ExportError else { return false }
            return failed == path && (error as? ExportError)?.description.hasPrefix("cannot write \(path): ") == true
        }
        #expect(!FileManager.default.fileExists(atPath: output + "/missing"))
    }
}

/// The exporters on the car fixture agree with `capture show`'s figures.
@Suite struct CarExportTests {
    @Test func gpxAndGeoJSONAgreeWithTheSummary() throws {
        let (store, data) = try ExportFixtures.replayed("car.trace")
        let out = try ExportFixtures.temporaryDirectory("out")
        let output = out.path
        defer { withExtendedLifetime((data, out)) {} }
        let summary = try store.summary(of: 1)
        let options = ExportOptions(dataDirectory: data.path)
        try GPXExporter().export(1, from: store, options: options, to: .file(output + "/car.gpx"))
        let gpx = String(decoding: try #require(ExportFixtures.contents(output + "/car.gpx")), as: UTF8.self)
        #expect(gpx.components(separatedBy: "<trkseg>").count - 1 == summary.tracks.count)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == summary.counts.locations)
        try GeoJSONExporter().export(1, from: store, options: options, to: .file(output + "/car.geojson"))
        let geoJSON = Data(try #require(ExportFixtures.contents(output + "/car.geojson")))
        let collection = try #require(try JSONSerialization.jsonObject(with: geoJSON) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == summary.tracks.count)
        for (feature, track) in zip(features, summary.tracks) {
            let properties = try #require(feature["properties"] as? [String: Any])
            #expect(properties["modality"] as? String == track.modality)
            #expect(abs((properties["distance"] as? Double ?? -1) - track.distanceMeters) < 0.01)
        }
    }
}
