import CaptureCore
import CaptureExport
import CaptureStorage
import CaptureSurface
import CaptureTestSupport
import Foundation
import Testing

/// The files `capture surface` and `capture export --format gpkg` write, read back by
/// independent readers: GDAL's `ogrinfo` for GeoPackages, JSONSerialization for GeoJSON.
@Suite(.serialized) struct SurfaceOutputTests {
    static let bicycle = Repository.fixture("bicycle.trace")

    @Test func exportGeoPackageOpensInGDAL() throws {
        let scratch = try SurfaceFixtures.scratch("gpkg")
        let store = try SurfaceFixtures.store(in: scratch, replaying: [Self.bicycle])
        let path = scratch.path + "/ride.gpkg"
        try GeoPackageExporter().export(1, from: store, options: ExportOptions(dataDirectory: scratch.path), to: .file(path))
        guard let layers = try SurfaceFixtures.ogrLayers(path) else { return }
        let fixes = try store.fixes(of: 1)
        let tracks = try store.tracks(of: 1)
        #expect(layers["fixes"] == .init(geometry: "Point", features: fixes.count, wgs84: true))
        #expect(layers["tracks"] == .init(geometry: "Line String", features: tracks.count, wgs84: true))
        let first = try SurfaceFixtures.ogrFeature(path, layer: "fixes", fid: 1)
        #expect(first["ts"] == String(fixes[0].timestamp))
        #expect(first["measurement"] == "1")
        #expect(first["geometry"]?.hasPrefix("POINT (\(String(format: "%.7f", fixes[0].longitude).prefix(8))") == true, "\(first)")
        // The application id and version a GeoPackage reader checks first.
        let header = try #require(FileManager.default.contents(atPath: path))
        #expect(header[68..<72] == Data([0x47, 0x50, 0x4B, 0x47]))
        #expect(header[60..<64] == Data([0x00, 0x00, 0x28, 0x3C]))  // user_version 10300
    }

    @Test func standardOutputIsRefusedAndNothingIsLeft() throws {
        let scratch = try SurfaceFixtures.scratch("gpkg")
        let store = try SurfaceFixtures.store(in: scratch, replaying: [Self.bicycle])
        #expect(throws: ExportError.self) {
            try GeoPackageExporter().export(1, from: store, options: ExportOptions(dataDirectory: scratch.path), to: .standardOutput)
        }
        #expect(throws: ExportError.self) {
            try GeoPackageExporter().export(9, from: store, options: ExportOptions(dataDirectory: scratch.path), to: .file(scratch.path + "/x.gpkg"))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0 != "data" }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func surfaceGeoPackageHasEveryLayer() throws {
        let scratch = try SurfaceFixtures.scratch("surface")
        let store = try SurfaceFixtures.store(in: scratch, replaying: [Self.bicycle])
        let path = scratch.path + "/surface.gpkg"
        let result = try Surface.run(.measurements([1]), merge: false, in: store, options: SurfaceOptions(), output: path)
        let windows = result.reports[0].windows
        #expect(windows.count > 100)
        guard let layers = try SurfaceFixtures.ogrLayers(path) else { return }
        #expect(layers["surface_windows"] == .init(geometry: "Line String", features: windows.count, wgs84: true))
        #expect(layers["surface_cells"]?.geometry == "Polygon")
        #expect(layers["surface_cells"]?.wgs84 == true)
        #expect((layers["surface_cells"]?.features ?? 0) > 0)
        #expect(layers["fixes"]?.features == (try store.fixes(of: 1)).count)
        #expect(layers["tracks"]?.features == (try store.tracks(of: 1)).count)
        let first = try SurfaceFixtures.ogrFeature(path, layer: "surface_windows", fid: 1)
        #expect(first["count"] == String(windows[0].statistics.count))
        #expect(first["class"] == String(windows[0].surfaceClass))
        #expect(abs((Double(first["sd"] ?? "") ?? -1) - windows[0].statistics.standardDeviation) < 1e-6, "\(first)")
        #expect(first["modality"] == "BICYCLE")
        // A DATETIME column: GDAL reads it as a date and time, not as text.
        #expect(first["start"]?.hasPrefix("2026/06/14 08:") == true, "\(first)")
    }

    @Test func geojsonAndCSVCarryEveryWindow() throws {
        let scratch = try SurfaceFixtures.scratch("surface")
        let store = try SurfaceFixtures.store(in: scratch, replaying: [Self.bicycle])
        let result = try Surface.run(
            .measurements([1]), merge: false, in: store, options: SurfaceOptions(), output: scratch.path + "/s.geojson")
        let windows = result.reports[0].windows
        let json = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/s.geojson")))
        let features = try #require((json as? [String: Any])?["features"] as? [[String: Any]])
        #expect(features.count == windows.count)
        let geometry = features[0]["geometry"] as? [String: Any]
        #expect(geometry?["type"] as? String == "LineString")
        let properties = try #require(features[0]["properties"] as? [String: Any])
        #expect(properties["count"] as? Int == windows[0].statistics.count)
        #expect(properties["class"] as? Int == windows[0].surfaceClass)

        _ = try Surface.run(.measurements([1]), merge: false, in: store, options: SurfaceOptions(), output: scratch.path + "/s.csv")
        let lines = try String(contentsOfFile: scratch.path + "/s.csv", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == windows.count + 1)
        #expect(lines[0].hasPrefix("measurement,window,track,modality,start,end"))

        #expect(throws: SurfaceError.unknownFormat(path: scratch.path + "/s.kml")) {
            try Surface.run(.measurements([1]), merge: false, in: store, options: SurfaceOptions(), output: scratch.path + "/s.kml")
        }
    }

    /// The same ride twice: every cell has two rides, twice the windows and samples, and the
    /// same standard deviation as one ride alone (Chan's merge is exact).
    @Test func mergeCountsRidesAndKeepsTheStatisticsExact() throws {
        let scratch = try SurfaceFixtures.scratch("merge")
        let store = try SurfaceFixtures.store(in: scratch, replaying: [Self.bicycle, Self.bicycle])
        let one = try Surface.run(.measurements([1]), merge: true, in: store, options: SurfaceOptions(), output: nil)
        let both = try Surface.run(.all, merge: true, in: store, options: SurfaceOptions(), output: scratch.path + "/map.gpkg")
        #expect(both.reports.count == 2)
        #expect(both.cells.count == one.cells.count)
        for (single, double) in zip(one.cells, both.cells) {
            #expect(double.rides == 2)
            #expect(double.windows == 2 * single.windows)
            #expect(double.statistics.count == 2 * single.statistics.count)
            #expect(abs(double.statistics.standardDeviation - single.statistics.standardDeviation) < 1e-9)
            #expect(double.surfaceClass == single.surfaceClass)
        }
        guard let layers = try SurfaceFixtures.ogrLayers(scratch.path + "/map.gpkg") else { return }
        #expect(layers["surface_cells"]?.features == both.cells.count)
        #expect(layers["surface_windows"]?.features == both.reports.map(\.windows.count).reduce(0, +))
    }
}

/// Privacy zones: a window they touch is left out and counted, and no output holds a position
/// inside one.
@Suite struct SurfacePrivacyTests {
    @Test func windowsInAZoneAreLeftOutAndCounted() throws {
        let scratch = try SurfaceFixtures.scratch("privacy")
        let store = try SurfaceFixtures.store(in: scratch, replaying: [SurfaceOutputTests.bicycle])
        let fixes = try store.fixes(of: 1)
        let centre = fixes[fixes.count / 3]
        let zone = try #require(PrivacyZone(latitude: centre.latitude, longitude: centre.longitude, radius: 150))
        let open = try SurfaceAnalysis.analyse(1, in: store, options: SurfaceOptions())
        let hidden = try SurfaceAnalysis.analyse(1, in: store, options: SurfaceOptions(privacyZones: [zone]))
        #expect(open.excluded.privacy == 0)
        #expect(hidden.excluded.privacy >= 20, "300 m of track at least: \(hidden.excluded.privacy)")
        #expect(hidden.windows.count + hidden.excluded.privacy <= open.windows.count + 2)
        for window in hidden.windows {
            for point in window.points {
                let distance = Geodesy.distance(from: (point.latitude, point.longitude), to: (zone.latitude, zone.longitude))
                #expect(distance > 145, "window \(window.index) has a point \(distance) m from the zone's centre")
            }
        }
    }
}
