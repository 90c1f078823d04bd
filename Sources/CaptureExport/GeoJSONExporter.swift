import CaptureCore
public import CaptureStorage

/// A GeoJSON FeatureCollection with one LineString feature per track (geometry `null` when the
/// track has fewer than two fixes). Properties: track, modality (at the track's start), start
/// and end (ISO 8601 UTC), distance (metres, geodesic over clean fixes, the figure
/// `capture show` reports), the number of fixes and, for a LineString, `coordinateProperties`:
/// arrays parallel to its coordinates with each fix's `times` (ISO 8601 UTC) and, where any fix
/// has them, `speed` (m/s), `accuracy` (m, horizontal), `satellites`, `hdop`, `vdop`, `pdop` and
/// `fix` (`2d`/`3d`), `null` for a fix without the value.
public struct GeoJSONExporter: MeasurementExporter {
    public let name = "geojson"
    public let filtersFixes = true

    /// The GeoJSON exporter.
    public init() {}

    public func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        let record = try exporting { try store.measurement(id) }
        try OutputSink.writing(to: destination) { sink in
            let events = try store.events(of: record.id)
            let privacy = try options.privacy(of: record.id, in: store)
            try sink.write("{\"type\":\"FeatureCollection\",\"features\":[")
            for (index, track) in try store.tracks(of: record.id).enumerated() {
                // The distance covers every fix that leaves the device, clean or not.
                let all = try store.fixes(of: record.id, track: track.number).filter { !privacy.hides($0) }
                let fixes = options.kept(all, privacy)
                let modality = Modality.spelling(at: track.startTime, events: events, initial: record.modality)
                var feature = index == 0 ? "\n" : ",\n"
                feature += "{\"type\":\"Feature\",\"properties\":{"
                feature += "\"track\":\(track.number),\"modality\":\(JSONString.quoted(modality))"
                feature += ",\"start\":\"\(TextFormat.isoTime(track.startTime))\""
                feature += ",\"end\":" + (track.endTime.map { "\"\(TextFormat.isoTime($0))\"" } ?? "null")
                feature += ",\"distance\":\(TextFormat.decimal(Geodesy.trackDistance(all), 3)),\"fixes\":\(fixes.count)"
                if fixes.count >= 2 {
                    // The modality of each point, only where it changes inside the track.
                    let modalities = fixes.map { Modality.spelling(at: $0.timestamp, events: events, initial: record.modality) }
                    feature += ",\"coordinateProperties\":"
                        + Self.coordinateProperties(fixes, modalities: Set(modalities).count > 1 ? modalities : nil)
                }
                feature += "},\"geometry\":"
                if fixes.count >= 2 {
                    feature += "{\"type\":\"LineString\",\"coordinates\":["
                    feature += fixes.map { fix in
                        var position = "[\(TextFormat.degrees(fix.longitude)),\(TextFormat.degrees(fix.latitude))"
                        if let altitude = fix.altitude { position += ",\(TextFormat.decimal(altitude, 2))" }
                        return position + "]"
                    }.joined(separator: ",")
                    feature += "]}}"
                } else {
                    feature += "null}"
                }
                try sink.write(feature)
            }
            try sink.write("\n]}\n")
        }
    }

    /// The per-fix arrays of a LineString's properties; a value's array only when a fix has it.
    static func coordinateProperties(_ fixes: [Fix], modalities: [String]? = nil) -> String {
        var members = ["\"times\":[" + fixes.map { "\"\(TextFormat.isoTime($0.timestamp))\"" }.joined(separator: ",") + "]"]
        func array(_ name: String, _ value: (Fix) -> String?) {
            let values = fixes.map(value)
            guard values.contains(where: { $0 != nil }) else { return }
            members.append("\"\(name)\":[" + values.map { $0 ?? "null" }.joined(separator: ",") + "]")
        }
        array("speed") { $0.speed.map { TextFormat.decimal($0, 2) } }
        array("accuracy") { $0.horizontalAccuracy.map { TextFormat.decimal($0, 2) } }
        array("satellites") { $0.satellites.map { "\($0)" } }
        array("hdop") { $0.hdop.map { TextFormat.decimal($0, 2) } }
        array("vdop") { $0.vdop.map { TextFormat.decimal($0, 2) } }
        array("pdop") { $0.pdop.map { TextFormat.decimal($0, 2) } }
        array("fix") { $0.mode.map { "\"\($0.spelling)\"" } }
        if let modalities { members.append("\"modality\":[" + modalities.map(JSONString.quoted).joined(separator: ",") + "]") }
        return "{" + members.joined(separator: ",") + "}"
    }
}
