import CaptureCore
import CaptureExport
import CaptureFormats
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// The rider's markers (issue 43, item 1) in every export, `capture show`'s value and the plot, read
/// from the ride's `recorder.jsonl`; privacy zones hide those they hide, as they hide fixes.
@Suite struct MarkerExportTests {
    static let base = PrivacyZoneExportTests.base

    /// PrivacyZoneExportTests' ride with three markers in its journal: at fix 10, at fix 25
    /// (inside the second zone, in its hidden stretch) and one with no place at 45 s (no zone
    /// hides it), among the recorder's other lines and a torn last one.
    static func ride() throws -> (store: Store, id: Int64, directory: String) {
        let directory = try ExportFixtures.temporaryDirectory().path
        let store = try Store(directory: directory)
        let id = try PrivacyZoneExportTests.ride(in: store)
        let folder = Store.attachmentDirectory(of: id, in: directory)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let lines = [
            #"{"event":"start","t":\#(base)}"#,
            #"{"event":"marker","latitude":51.05,"longitude":13.731,"source":"button /dev/input/event0","t":\#(base + 10_000)}"#,
            #"{"event":"still","t":\#(base + 12_000)}"#,
            #"{"event":"marker","latitude":51.05,"longitude":13.7325,"source":"button /dev/input/event0","t":\#(base + 25_000)}"#,
            #"{"event":"marker","source":"button /dev/input/event0","t":\#(base + 45_000)}"#,
            #"{"event":"mark"#,
        ]
        try (lines.joined(separator: "\n")).write(toFile: folder + "/" + Store.journalName, atomically: true, encoding: .utf8)
        return (store, id, directory)
    }

    @Test func theStoreReadsTheMarkersOfTheJournalForShow() throws {
        let (store, id, _) = try Self.ride()
        let markers = store.markers(of: id)
        #expect(markers.map(\.time) == [Self.base + 10_000, Self.base + 25_000, Self.base + 45_000], "the torn last line is left out")
        #expect(markers[0].latitude == 51.05 && markers[2].latitude == nil)
        let summary = try store.summary(of: id)
        #expect(summary.markers == markers)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(summary)) as? [String: Any]
        #expect((json?["markers"] as? [[String: Any]])?.count == 3)
    }

    @Test func gpxHasThePlacedMarkersAsWaypointsThatAreNoFixes() throws {
        let (store, id, directory) = try Self.ride()
        let path = directory + "/ride.gpx"
        try GPXExporter().export(id, from: store, options: ExportOptions(dataDirectory: directory), to: .file(path))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "<wpt ").count - 1 == 2, "the marker without a place has no waypoint")
        #expect(text.contains("<name>marker 1</name><desc>button /dev/input/event0</desc><type>marker</type>"))
        // GPX orders waypoints before the track.
        #expect(text.range(of: "<wpt ")!.lowerBound < text.range(of: "<trk>")!.lowerBound)
        // Replayed, the file gives the ride's 60 fixes and no more.
        #expect(try GPXReader.read(Data(contentsOf: URL(fileURLWithPath: path))).fixes.count == 60)
    }

    @Test func geoJSONCSVAndGeoPackageHoldEveryMarkerAndZonesHideThoseInside() throws {
        let (store, id, directory) = try Self.ride()
        for (zones, expected) in [([], 3), (PrivacyZoneExportTests.zones, 2)] {
            let options = ExportOptions(dataDirectory: directory, privacyZones: zones)
            let geojson = directory + "/ride-\(zones.count).geojson"
            try GeoJSONExporter().export(id, from: store, options: options, to: .file(geojson))
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: geojson))) as? [String: Any]
            let points = (object?["features"] as? [[String: Any]] ?? []).filter { ($0["properties"] as? [String: Any])?["marker"] != nil }
            #expect(points.count == expected, "zones: \(zones.count)")
            #expect((points.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [13.731, 51.05])

            let csv = directory + "/csv-\(zones.count)"
            try CSVExporter().export(id, from: store, options: options, to: .file(csv))
            let rows = try String(contentsOfFile: csv + "/markers.csv", encoding: .utf8).split(separator: "\n")
            #expect(rows.first == "time_unix_ms,latitude_deg,longitude_deg,source")
            #expect(rows.count == expected + 1)
            #expect(rows.dropFirst().first == "\(Self.base + 10_000),51.05,13.731,button /dev/input/event0")

            let gpkg = directory + "/ride-\(zones.count).gpkg"
            try GeoPackageExporter().export(id, from: store, options: options, to: .file(gpkg))
            if let ogrinfo = Program.require("ogrinfo", package: "gdal-bin") {
                let result = try Program.run(ogrinfo, ["-ro", "-so", gpkg, "markers"])
                #expect(result.status == 0, "ogrinfo: \(result.stderr)")
                #expect(result.stdout.contains("Feature Count: \(expected)"), "\(result.stdout)")
                #expect(result.stdout.contains("Geometry: Point"))
            }
        }
    }

    @Test func thePlotDrawsThePlacedMarkersOnTheMap() throws {
        let (store, id, directory) = try Self.ride()
        let path = directory + "/ride.svg"
        try PlotExporter().export(id, from: store, options: ExportOptions(dataDirectory: directory), to: .file(path))
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.components(separatedBy: ##"fill="#fdae61""##).count - 1 == 2)
        #expect(svg.contains(#"class="label">2</text>"#))
    }
}
