import CaptureCore
import CaptureExport
import CaptureFormats
import CaptureStorage

/// The output formats of `capture surface`, picked by the file name's ending.
enum SurfaceFormat: Sendable {
    case geojson, csv, gpkg

    init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") {
            self = .geojson
        } else if lower.hasSuffix(".csv") {
            self = .csv
        } else if lower.hasSuffix(".gpkg") {
            self = .gpkg
        } else {
            return nil
        }
    }
}

/// Writes a ``Surface/Result``: GeoJSON (a LineString per window, or a Polygon per cell when
/// merged), CSV (a row per window, or per cell), or a GeoPackage with the layers
/// `surface_windows`, `surface_cells`, `fixes` and `tracks`. Files appear whole or not at all.
extension Surface.Result {
    /// Every window of every report, in order, without gathering them into one array.
    func forEachWindow(_ body: (SurfaceWindow) throws -> Void) rethrows {
        for report in reports { for window in report.windows { try body(window) } }
    }
}

package enum SurfaceWriter {
    /// `20`, `2.50`: a length or speed as the outputs write it (and `capture surface` says it).
    package static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : TextFormat.decimal(value, 2)
    }

    static func write(_ result: Surface.Result, as format: SurfaceFormat, to path: String, store: Store, options: SurfaceOptions) throws {
        switch format {
        case .gpkg:
            try GeoPackage.write(to: path) { gpkg in try writeGeoPackage(result, store: store, options: options, into: &gpkg) }
        case .geojson, .csv:
            let sink = try OutputSink(.file(path))
            do {
                if format == .csv {
                    try sink.write(result.merged ? cellHeader : windowHeader)
                    if result.merged {
                        for cell in result.cells { try sink.write(csv(cell)) }
                    } else {
                        try result.forEachWindow { try sink.write(csv($0)) }
                    }
                } else {
                    try sink.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
                    var first = true
                    func feature(_ text: String) throws {
                        try sink.write((first ? "" : ",\n") + text)
                        first = false
                    }
                    if result.merged {
                        for cell in result.cells { try feature(geojson(cell)) }
                    } else {
                        try result.forEachWindow { try feature(geojson($0)) }
                    }
                    try sink.write("\n]}\n")
                }
                try sink.commit()
            } catch {
                sink.discard()
                throw error
            }
        }
    }

    // MARK: - CSV

    static let windowHeader =
        "measurement,window,track,modality,start,end,start_lat,start_lon,end_lat,end_lon,distance,speed,count,mean,m2,sd,class\n"
    static let cellHeader = "row,column,modality,south,west,north,east,rides,windows,count,mean,m2,sd,class\n"

    static func csv(_ window: SurfaceWindow) -> String {
        let first = window.points.first ?? SurfacePoint(latitude: 0, longitude: 0)
        let last = window.points.last ?? first
        let s = window.statistics
        return [
            "\(window.measurement)", "\(window.index)", "\(window.track)", window.modality, TextFormat.isoTime(window.start),
            TextFormat.isoTime(window.end), TextFormat.degrees(first.latitude), TextFormat.degrees(first.longitude),
            TextFormat.degrees(last.latitude), TextFormat.degrees(last.longitude), TextFormat.decimal(window.distance, 2),
            TextFormat.decimal(window.speed, 3), "\(s.count)", TextFormat.decimal(s.mean, 6), TextFormat.decimal(s.m2, 6),
            TextFormat.decimal(s.standardDeviation, 6), "\(window.surfaceClass)",
        ].joined(separator: ",") + "\n"
    }

    static func csv(_ cell: SurfaceGrid.Cell) -> String {
        let s = cell.statistics
        return [
            "\(cell.row)", "\(cell.column)", cell.modality, TextFormat.degrees(cell.outline[0].latitude),
            TextFormat.degrees(cell.outline[0].longitude), TextFormat.degrees(cell.outline[2].latitude),
            TextFormat.degrees(cell.outline[2].longitude), "\(cell.rides)", "\(cell.windows)", "\(s.count)",
            TextFormat.decimal(s.mean, 6), TextFormat.decimal(s.m2, 6), TextFormat.decimal(s.standardDeviation, 6),
            "\(cell.surfaceClass)",
        ].joined(separator: ",") + "\n"
    }

    // MARK: - GeoJSON

    static func coordinates(_ points: [SurfacePoint]) -> String {
        "[" + points.map { "[\(TextFormat.degrees($0.longitude)),\(TextFormat.degrees($0.latitude))]" }.joined(separator: ",") + "]"
    }

    static func statistics(_ s: SurfaceStatistics) -> String {
        "\"count\":\(s.count),\"mean\":\(TextFormat.decimal(s.mean, 6)),\"m2\":\(TextFormat.decimal(s.m2, 6)),"
            + "\"sd\":\(TextFormat.decimal(s.standardDeviation, 6))"
    }

    static func geojson(_ window: SurfaceWindow) -> String {
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":\(coordinates(window.points))},"
            + "\"properties\":{\"measurement\":\(window.measurement),\"window\":\(window.index),\"track\":\(window.track),"
            + "\"modality\":\(JSONString.quoted(window.modality)),\"start\":\"\(TextFormat.isoTime(window.start))\","
            + "\"end\":\"\(TextFormat.isoTime(window.end))\",\"distance\":\(TextFormat.decimal(window.distance, 2)),"
            + "\"speed\":\(TextFormat.decimal(window.speed, 3)),\(statistics(window.statistics)),\"class\":\(window.surfaceClass)}}"
    }

    static func geojson(_ cell: SurfaceGrid.Cell) -> String {
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[\(coordinates(cell.outline))]},"
            + "\"properties\":{\"row\":\(cell.row),\"column\":\(cell.column),\"modality\":\(JSONString.quoted(cell.modality)),"
            + "\"rides\":\(cell.rides),\"windows\":\(cell.windows),\(statistics(cell.statistics)),\"class\":\(cell.surfaceClass)}}"
    }

    // MARK: - GeoPackage

    static func writeGeoPackage(_ result: Surface.Result, store: Store, options: SurfaceOptions, into gpkg: inout GeoPackage) throws {
        let statisticsColumns: [(name: String, type: GeoPackage.ColumnType)] = [
            ("count", .integer), ("mean", .real), ("m2", .real), ("sd", .real), ("class", .integer),
        ]
        func values(_ s: SurfaceStatistics, _ surfaceClass: Int) -> [GeoPackage.Value] {
            [.integer(Int64(s.count)), .real(s.mean), .real(s.m2), .real(s.standardDeviation), .integer(Int64(surfaceClass))]
        }
        let windows = try gpkg.layer(
            "surface_windows", .lineString,
            columns: [
                ("measurement", .integer), ("window", .integer), ("track", .integer), ("modality", .text), ("start", .dateTime),
                ("end", .dateTime), ("distance", .real), ("speed", .real),
            ] + statisticsColumns,
            description: "capture surface: vertical acceleration (m/s², gravity removed) per window; speed m/s")
        try result.forEachWindow { window in
            try gpkg.insert(
                into: windows, .lineString(window.points.map { ($0.longitude, $0.latitude) }),
                [
                    .integer(window.measurement), .integer(Int64(window.index)), .integer(Int64(window.track)),
                    .text(window.modality), .text(TextFormat.isoTime(window.start)), .text(TextFormat.isoTime(window.end)),
                    .real(window.distance), .real(window.speed),
                ] + values(window.statistics, window.surfaceClass))
        }
        // The cells of these rides, merged or not, so one file opens as a map.
        var cells = result.cells
        if !result.merged {
            var grid = SurfaceGrid()
            result.forEachWindow { grid.add($0) }
            cells = grid.cells(thresholds: options.thresholds)
        }
        let cellLayer = try gpkg.layer(
            "surface_cells", .polygon,
            columns: [("row", .integer), ("column", .integer), ("modality", .text), ("rides", .integer), ("windows", .integer)]
                + statisticsColumns,
            description: "capture surface: windows merged into cells of \(number(SurfaceGrid.cellSize)) m")
        for cell in cells {
            try gpkg.insert(
                into: cellLayer, .polygon(cell.outline.map { ($0.longitude, $0.latitude) }),
                [
                    .integer(Int64(cell.row)), .integer(Int64(cell.column)), .text(cell.modality), .integer(Int64(cell.rides)),
                    .integer(Int64(cell.windows)),
                ] + values(cell.statistics, cell.surfaceClass))
        }
        let rideLayers = try GeoPackageExporter.rideLayers(in: &gpkg)
        let exportOptions = ExportOptions(dataDirectory: "", privacyZones: options.privacyZones)
        for report in result.reports {
            try GeoPackageExporter.addRide(
                try store.measurement(report.measurement), from: store, options: exportOptions, to: &gpkg, layers: rideLayers)
        }
    }
}
