import CaptureCore
public import CaptureStorage

/// A GeoJSON FeatureCollection with one LineString feature per track (geometry `null` when the
/// track has fewer than two fixes). Properties: track, modality (at the track's start), start
/// and end (ISO 8601 UTC), distance (metres, geodesic over clean fixes, the figure
/// `capture show` reports) and the number of fixes.
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
            try sink.write("{\"type\":\"FeatureCollection\",\"features\":[")
            for (index, track) in try store.tracks(of: record.id).enumerated() {
                let all = try store.fixes(of: record.id, track: track.number)
                let fixes = options.kept(all)
                let modality = Modality.spelling(at: track.startTime, events: events, initial: record.modality)
                var feature = index == 0 ? "\n" : ",\n"
                feature += "{\"type\":\"Feature\",\"properties\":{"
                feature += "\"track\":\(track.number),\"modality\":\(JSONString.quoted(modality))"
                feature += ",\"start\":\"\(TextFormat.isoTime(track.startTime))\""
                feature += ",\"end\":" + (track.endTime.map { "\"\(TextFormat.isoTime($0))\"" } ?? "null")
                feature += ",\"distance\":\(TextFormat.decimal(Geodesy.trackDistance(all), 3)),\"fixes\":\(fixes.count)},\"geometry\":"
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
}
