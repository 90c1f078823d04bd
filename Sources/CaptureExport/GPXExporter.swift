import CaptureCore
public import CaptureStorage

/// GPX 1.1: one `<trk>` with one `<trkseg>` per track; each point has `<ele>`, `<time>`, the fix
/// quality the receiver reported (`<fix>` 2d/3d, `<sat>`, `<hdop>`, `<vdop>`, `<pdop>`) and, in
/// `<extensions>`, speed (m/s) and horizontal accuracy (m) in the `capture` namespace, and the
/// modality on the first point after a change of it.
public struct GPXExporter: MeasurementExporter {
    public let name = "gpx"
    public let filtersFixes = true

    /// The GPX exporter.
    public init() {}

    public func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        let record = try exporting { try store.measurement(id) }
        try OutputSink.writing(to: destination) { sink in
            try sink.write(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="capture" xmlns="http://www.topografix.com/GPX/1/1" \
                xmlns:capture="urn:capture:gpx:1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
                xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
                  <metadata>
                    <name>measurement \(record.id)</name>
                    <time>\(TextFormat.isoTime(record.startTime))</time>
                  </metadata>
                  <trk>
                    <name>measurement \(record.id)</name>
                    <type>\(TextFormat.xmlEscaped(record.modality))</type>

                """)
            // A change of modality is marked on the first point after it (capture's extension),
            // so that replaying the file gives the same modality at every fix.
            let events = try exporting { try store.events(of: record.id) }
            let privacy = try options.privacy(of: record.id, in: store)
            var modality = record.modality
            for track in try store.tracks(of: record.id) {
                try sink.write("    <trkseg>\n")
                for fix in options.kept(try store.fixes(of: record.id, track: track.number), privacy) {
                    let current = Modality.spelling(at: fix.timestamp, events: events, initial: record.modality)
                    try sink.write(Self.point(fix, modality: current == modality ? nil : current))
                    modality = current
                }
                try sink.write("    </trkseg>\n")
            }
            try sink.write("  </trk>\n</gpx>\n")
        }
    }

    /// One `<trkpt>` line.
    static func point(_ fix: Fix, modality: String? = nil) -> String {
        var point = "      <trkpt lat=\"\(TextFormat.degrees(fix.latitude))\" lon=\"\(TextFormat.degrees(fix.longitude))\">"
        if let altitude = fix.altitude { point += "<ele>\(TextFormat.decimal(altitude, 2))</ele>" }
        point += "<time>\(TextFormat.isoTime(fix.timestamp))</time>"
        // GPX 1.1 orders them: fix, sat, hdop, vdop, pdop (then extensions).
        if let mode = fix.mode { point += "<fix>\(mode.spelling)</fix>" }
        if let satellites = fix.satellites { point += "<sat>\(satellites)</sat>" }
        if let hdop = fix.hdop { point += "<hdop>\(TextFormat.decimal(hdop, 2))</hdop>" }
        if let vdop = fix.vdop { point += "<vdop>\(TextFormat.decimal(vdop, 2))</vdop>" }
        if let pdop = fix.pdop { point += "<pdop>\(TextFormat.decimal(pdop, 2))</pdop>" }
        if fix.speed != nil || fix.horizontalAccuracy != nil || modality != nil {
            point += "<extensions>"
            if let speed = fix.speed { point += "<capture:speed>\(TextFormat.decimal(speed, 2))</capture:speed>" }
            if let accuracy = fix.horizontalAccuracy {
                point += "<capture:accuracy>\(TextFormat.decimal(accuracy, 2))</capture:accuracy>"
            }
            if let modality { point += "<capture:modality>\(TextFormat.xmlEscaped(modality))</capture:modality>" }
            point += "</extensions>"
        }
        return point + "</trkpt>\n"
    }
}

