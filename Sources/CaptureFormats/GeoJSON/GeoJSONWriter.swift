package import CaptureCore

/// Writes GeoJSON as the GeoJSON export does: a FeatureCollection with one LineString feature
/// per track (geometry `null` when the track has fewer than two fixes), its properties and the
/// per-point `coordinateProperties` that ``GeoJSONReader`` reads back.
package enum GeoJSONWriter {
    /// The collection up to its first feature.
    package static let header = "{\"type\":\"FeatureCollection\",\"features\":["
    /// The end of the collection.
    package static let footer = "\n]}\n"

    /// One track's feature, with the separator before it (`first`: none but a line break).
    ///
    /// - Parameters:
    ///   - modality: the modality at the track's start.
    ///   - distance: metres.
    ///   - fixes: the points written.
    ///   - modalities: each fix's modality; written (as `coordinateProperties.modality`) only
    ///     when it changes inside the track.
    package static func feature(
        first: Bool, track: Int, modality: String, start: Int64, end: Int64?, distance: Double, fixes: [Fix],
        modalities: [String]
    ) -> String {
        var feature = first ? "\n" : ",\n"
        feature += "{\"type\":\"Feature\",\"properties\":{"
        feature += "\"track\":\(track),\"modality\":\(JSONString.quoted(modality))"
        feature += ",\"start\":\"\(TextFormat.isoTime(start))\""
        feature += ",\"end\":" + (end.map { "\"\(TextFormat.isoTime($0))\"" } ?? "null")
        feature += ",\"distance\":\(TextFormat.decimal(distance, 3)),\"fixes\":\(fixes.count)"
        if fixes.count >= 2 {
            feature += ",\"coordinateProperties\":"
                + coordinateProperties(fixes, modalities: Set(modalities).count > 1 ? modalities : nil)
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
        return feature
    }

    /// A rider's marker as a Point feature (geometry `null` without a place), with the separator
    /// before it: properties `marker` (its number in the ride), `time` (ISO 8601 UTC), `source`.
    package static func marker(_ marker: Marker, number: Int, first: Bool) -> String {
        var feature = first ? "\n" : ",\n"
        feature += "{\"type\":\"Feature\",\"properties\":{\"marker\":\(number),\"time\":\"\(TextFormat.isoTime(marker.time))\""
        feature += ",\"source\":\(JSONString.quoted(marker.source))},\"geometry\":"
        if let latitude = marker.latitude, let longitude = marker.longitude {
            feature += "{\"type\":\"Point\",\"coordinates\":[\(TextFormat.degrees(longitude)),\(TextFormat.degrees(latitude))]}}"
        } else {
            feature += "null}"
        }
        return feature
    }

    /// The per-fix arrays of a LineString's properties; a value's array only when a fix has it.
    package static func coordinateProperties(_ fixes: [Fix], modalities: [String]? = nil) -> String {
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
