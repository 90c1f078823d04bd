import CaptureCore
import CaptureFormats
package import CaptureStorage

/// GPX 1.1: the ride's figures (``RideFigures/text``) as the metadata's `<desc>`; the rider's
/// markers as waypoints (`<wpt>` of `<type>marker</type>`); one `<trk>`
/// with one `<trkseg>` per track; each point has `<ele>`, `<time>`, the fix
/// quality the receiver reported (`<fix>` 2d/3d, `<sat>`, `<hdop>`, `<vdop>`, `<pdop>`) and, in
/// `<extensions>`, speed (m/s) and horizontal accuracy (m) in the `capture` namespace, and the
/// modality on the first point after a change of it. The text is ``GPXWriter``'s
/// (CaptureFormats/GPX, beside its reader).
package struct GPXExporter: DocumentExporter {
    package let name = "gpx"
    package let summary = """
        GPX 1.1: the ride's figures (distance, duration, altitude, as `capture show` states \
        them) in <metadata><desc>; the rider's markers (button presses) as <wpt> of type \
        marker; one <trk> with one <trkseg> per track; each point has <ele>, \
        <time> and, in <extensions>, speed (m/s) and horizontal accuracy (m).
        """

    /// The GPX exporter.
    package init() {}

    package func write(_ record: MeasurementRecord, from store: Store, options: ExportOptions, to sink: OutputSink) throws {
        let privacy = try options.privacy(of: record.id, in: store)
        // The ride's figures (those of what is exported: privacy zones hide their part), as
        // `capture show` and the plot's title state them.
        let figures = try store.figures(of: record.id, privacy: privacy)
        try sink.write(
            GPXWriter.header(
                measurement: record.id, startTime: record.startTime, modality: record.modality, description: figures.text,
                markers: options.markers(of: record.id, in: store, privacy)))
        // A change of modality is marked on the first point after it (capture's extension),
        // so that replaying the file gives the same modality at every fix.
        let events = try store.events(of: record.id)
        var modality = record.modality
        for track in try store.tracks(of: record.id) {
            try sink.write(GPXWriter.segmentStart)
            for fix in options.kept(try store.fixes(of: record.id, track: track.number), privacy) {
                let current = Modality.spelling(at: fix.timestamp, events: events, initial: record.modality)
                try sink.write(GPXWriter.point(fix, modality: current == modality ? nil : current))
                modality = current
            }
            try sink.write(GPXWriter.segmentEnd)
        }
        try sink.write(GPXWriter.footer)
    }
}
