package import CaptureCore
package import Foundation

/// Reads capture's GeoJSON export: each LineString feature's coordinates with the per-point
/// `coordinateProperties` (`times` required; `speed`, `accuracy`, `satellites`, `hdop`, `vdop`,
/// `pdop`, `fix` where present) and its `modality`.
///
/// `capture replay` reads a GeoJSON file through it (`TraceInput`, in CaptureSensors); its
/// writer, ``GeoJSONWriter``, is the GeoJSON export's.
package enum GeoJSONReader {
    /// Each feature's modality, fixes and, where the modality changes inside it, each fix's.
    /// Throws a ``TraceError`` (line 1) for a document that is not such a collection.
    package static func read(_ data: Data) throws(TraceError)
        -> [(modality: Modality?, fixes: [Fix], modalities: [Modality?]?)]
    {
        func malformed(_ expected: String) -> TraceError {
            TraceError(line: 1, expected: expected, found: "")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let features = root["features"] as? [[String: Any]]
        else { throw malformed("a GeoJSON FeatureCollection") }
        var tracks: [(modality: Modality?, fixes: [Fix], modalities: [Modality?]?)] = []
        for feature in features {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            let modality = (properties["modality"] as? String).flatMap(Modality.init(parsing:))
            guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "LineString",
                let coordinates = geometry["coordinates"] as? [[Double]]
            else {
                tracks.append((modality, [], nil))
                continue
            }
            let perPoint = properties["coordinateProperties"] as? [String: Any] ?? [:]
            guard let times = perPoint["times"] as? [String], times.count == coordinates.count else {
                throw malformed("coordinateProperties.times with one time per coordinate")
            }
            func value(_ name: String, _ index: Int) -> Double? {
                guard let array = perPoint[name] as? [Any], index < array.count else { return nil }
                return (array[index] as? NSNumber)?.doubleValue
            }
            var fixes: [Fix] = []
            for (index, position) in coordinates.enumerated() where position.count >= 2 {
                guard let time = ISO8601Time.unixMilliseconds(iso8601: times[index]),
                    (-90...90).contains(position[1]), (-180...180).contains(position[0])
                else { throw malformed("an ISO 8601 time and a position for point \(index + 1)") }
                var fix = Fix(
                    timestamp: time, latitude: position[1], longitude: position[0],
                    altitude: position.count > 2 ? position[2] : nil)
                fix.speed = value("speed", index)
                fix.horizontalAccuracy = value("accuracy", index)
                fix.satellites = value("satellites", index).map { Int($0) }
                fix.hdop = value("hdop", index)
                fix.vdop = value("vdop", index)
                fix.pdop = value("pdop", index)
                if let modes = perPoint["fix"] as? [Any], index < modes.count, let mode = modes[index] as? String {
                    fix.mode = FixMode(spelling: mode)
                }
                fixes.append(fix)
            }
            let modalities = (perPoint["modality"] as? [Any]).map { values in
                fixes.indices.map { $0 < values.count ? (values[$0] as? String).flatMap(Modality.init(parsing:)) : nil }
            }
            tracks.append((modality, fixes, modalities))
        }
        return tracks
    }
}
