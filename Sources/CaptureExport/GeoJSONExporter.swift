import CaptureCore
import CaptureFormats
package import CaptureStorage

/// A GeoJSON FeatureCollection with one LineString feature per track (geometry `null` when the
/// track has fewer than two fixes), then one Point feature per rider's marker
/// (``GeoJSONWriter/marker(_:number:first:)``). Properties: track, modality (at the track's start), start
/// and end (ISO 8601 UTC), distance (metres, geodesic over clean fixes, the figure
/// `capture show` reports), the number of fixes and, for a LineString, `coordinateProperties`:
/// arrays parallel to its coordinates with each fix's `times` (ISO 8601 UTC) and, where any fix
/// has them, `speed` (m/s), `accuracy` (m, horizontal), `satellites`, `hdop`, `vdop`, `pdop` and
/// `fix` (`2d`/`3d`), `null` for a fix without the value. The text is ``GeoJSONWriter``'s
/// (CaptureFormats/GeoJSON, beside its reader).
package struct GeoJSONExporter: DocumentExporter {
    package let name = "geojson"
    package let summary = """
        a FeatureCollection with one LineString feature per track (geometry null when the track \
        has fewer than two fixes); properties: track, modality (at the track's start), start and \
        end (ISO 8601 UTC), distance (metres, geodesic over clean fixes, the figure `capture \
        show` reports), fixes; then one Point feature per marker the rider made (properties \
        marker, time, source).
        """

    /// The GeoJSON exporter.
    package init() {}

    package func write(_ record: MeasurementRecord, from store: Store, options: ExportOptions, to sink: OutputSink) throws {
        let events = try store.events(of: record.id)
        let privacy = try options.privacy(of: record.id, in: store)
        try sink.write(GeoJSONWriter.header)
        let tracks = try store.tracks(of: record.id)
        for (index, track) in tracks.enumerated() {
            // The distance covers every fix that leaves the device, clean or not.
            let all = try store.fixes(of: record.id, track: track.number).filter { !privacy.hides($0) }
            let fixes = options.kept(all, privacy)
            try sink.write(
                GeoJSONWriter.feature(
                    first: index == 0, track: track.number,
                    modality: Modality.spelling(at: track.startTime, events: events, initial: record.modality),
                    start: track.startTime, end: track.endTime, distance: Geodesy.trackDistance(all), fixes: fixes,
                    modalities: fixes.map { Modality.spelling(at: $0.timestamp, events: events, initial: record.modality) }))
        }
        for (index, marker) in options.markers(of: record.id, in: store, privacy).enumerated() {
            try sink.write(GeoJSONWriter.marker(marker, number: index + 1, first: tracks.isEmpty && index == 0))
        }
        try sink.write(GeoJSONWriter.footer)
    }
}
