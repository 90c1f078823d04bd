import CaptureCore
import CaptureFormats
package import CaptureStorage

/// An OGC GeoPackage (``GeoPackage``) with three layers: `fixes`, one point per fix (measurement,
/// track, time as Unix ms and ISO 8601 UTC, altitude, speed, horizontal accuracy, modality);
/// `tracks`, one LineString per track of two fixes or more (measurement, track, modality at its
/// start, start and end, distance in metres, fixes); and `markers`, the rider's (measurement,
/// time, what made it; a point where a fix gave a place). Privacy zones and `--clean` apply as in
/// every export. A GeoPackage is a database file, so it is written to a file only (`-o ride.gpkg`).
package struct GeoPackageExporter: MeasurementExporter {
    package let name = "gpkg"
    package let summary = """
        an OGC GeoPackage (EPSG:4326) for QGIS or GDAL: the layers fixes (points), tracks \
        (lines) and markers (the rider's button presses, points). A database file, so -o \
        FILE.gpkg only; `capture surface` adds its layers.
        """

    /// The GeoPackage exporter.
    package init() {}

    package func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        let record = try finishedRecord(id, in: store)
        guard case .file(let path) = destination else {
            throw .fileRequired(format: name)
        }
        try GeoPackage.write(to: path) { gpkg in
            let layers = try Self.rideLayers(in: &gpkg)
            try Self.addRide(record, from: store, options: options, to: &gpkg, layers: layers)
        }
    }

    /// A ride's layers.
    package typealias RideLayers = (fixes: GeoPackage.Layer, tracks: GeoPackage.Layer, markers: GeoPackage.Layer)

    /// The `fixes`, `tracks` and `markers` layers, empty.
    package static func rideLayers(in gpkg: inout GeoPackage) throws -> RideLayers {
        let fixes = try gpkg.layer(
            "fixes", .point,
            columns: [
                ("measurement", .integer), ("track", .integer), ("ts", .integer), ("time", .dateTime), ("altitude", .real),
                ("speed", .real), ("accuracy", .real), ("modality", .text),
            ], description: "capture: every fix (WGS 84); ts in Unix ms, altitude m, speed m/s, accuracy m")
        let tracks = try gpkg.layer(
            "tracks", .lineString,
            columns: [
                ("measurement", .integer), ("track", .integer), ("modality", .text), ("start", .dateTime), ("end", .dateTime),
                ("distance", .real), ("fixes", .integer),
            ], description: "capture: one line per track; distance in metres")
        let markers = try gpkg.layer(
            "markers", .point, columns: [("measurement", .integer), ("ts", .integer), ("time", .dateTime), ("source", .text)],
            description: "capture: the rider's markers (button presses); no geometry where no fix gave a place")
        return (fixes, tracks, markers)
    }

    /// Adds measurement `record`'s fixes, tracks and markers to `layers`.
    package static func addRide(
        _ record: MeasurementRecord, from store: Store, options: ExportOptions, to gpkg: inout GeoPackage,
        layers: RideLayers
    ) throws {
        let events = try store.events(of: record.id)
        let privacy = try options.privacy(of: record.id, in: store)
        for track in try store.tracks(of: record.id) {
            // Streamed: a day's fixes are not held, only the track's line.
            var distance = Geodesy.TrackDistance()
            var line: [(longitude: Double, latitude: Double)] = []
            try store.forEachFix(of: record.id, track: track.number) { fix in
                guard !privacy.hides(fix) else { return }
                distance.add(fix)
                guard options.keeps(fix, privacy) else { return }
                line.append((fix.longitude, fix.latitude))
                try gpkg.insert(
                    into: layers.fixes, .point(longitude: fix.longitude, latitude: fix.latitude),
                    [
                        .integer(record.id), .integer(Int64(track.number)), .integer(fix.timestamp),
                        .text(TextFormat.isoTime(fix.timestamp)), fix.altitude.map(GeoPackage.Value.real) ?? .null,
                        fix.speed.map(GeoPackage.Value.real) ?? .null,
                        fix.horizontalAccuracy.map(GeoPackage.Value.real) ?? .null,
                        .text(Modality.spelling(at: fix.timestamp, events: events, initial: record.modality)),
                    ])
            }
            try gpkg.insert(
                into: layers.tracks, line.count < 2 ? nil : .lineString(line),
                [
                    .integer(record.id), .integer(Int64(track.number)),
                    .text(Modality.spelling(at: track.startTime, events: events, initial: record.modality)),
                    .text(TextFormat.isoTime(track.startTime)), track.endTime.map { .text(TextFormat.isoTime($0)) } ?? .null,
                    .real(distance.metres), .integer(Int64(line.count)),
                ])
        }
        for marker in options.markers(of: record.id, in: store, privacy) {
            let place = marker.latitude.flatMap { latitude in
                marker.longitude.map { GeoPackage.Geometry.point(longitude: $0, latitude: latitude) }
            }
            try gpkg.insert(
                into: layers.markers, place,
                [.integer(record.id), .integer(marker.time), .text(TextFormat.isoTime(marker.time)), .text(marker.source)])
        }
    }
}
