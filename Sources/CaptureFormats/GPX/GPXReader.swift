package import CaptureCore
package import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads GPX 1.1 points (`trkpt`, `rtept`, `wpt`) with Foundation's XMLParser; a waypoint of
/// type `marker` (a rider's marker, ``GPXWriter/waypoint(_:number:)``) is no point of the ride.
///
/// `capture replay` reads a GPX file through it (`TraceInput`, in CaptureSensors); its writer,
/// ``GPXWriter``, is the GPX export's.
package enum GPXReader {
    /// The points with a time, each with its segment number (0 outside a `<trkseg>`), and the
    /// modality a track's `<type>` names, if it names one.
    /// Throws a ``TraceError`` at the parser's line for a document that is not well-formed.
    package static func read(_ data: Data) throws(TraceError)
        -> (fixes: [(fix: Fix, segment: Int, modality: Modality?)], modality: Modality?)
    {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        let parsed = parser.parse()
        guard parsed, parser.parserError == nil, delegate.depth == 0 else {
            let line = parser.lineNumber
            throw TraceError(
                line: line, expected: "well-formed GPX", found: parser.parserError.map { "\($0.localizedDescription)" } ?? "")
        }
        return (delegate.fixes, delegate.modality)
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var fixes: [(fix: Fix, segment: Int, modality: Modality?)] = []
        var modality: Modality?
        /// capture's extension: the modality from this point on, where it changed.
        private var pointModality: Modality?
        private var segment = 0
        private var inSegment = false
        private var inTrack = false
        private var quality = Fix(timestamp: 0, latitude: 0, longitude: 0)
        /// Elements open; not 0 at the end means the document was cut off or mismatched.
        var depth = 0
        private var point: (lat: Double, lon: Double)?
        private var elevation: Double?
        private var time: Int64?
        private var pointType: String?
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            let name = Self.local(elementName)
            depth += 1
            text = ""
            if name == "trk" { inTrack = true }
            if name == "trkseg" {
                segment += 1
                inSegment = true
            }
            if ["trkpt", "rtept", "wpt"].contains(name) {
                quality = Fix(timestamp: 0, latitude: 0, longitude: 0)
                if let lat = attributeDict["lat"].flatMap(Double.init), let lon = attributeDict["lon"].flatMap(Double.init),
                    (-90...90).contains(lat), (-180...180).contains(lon)
                {
                    point = (lat, lon)
                } else {
                    point = nil
                }
                elevation = nil
                time = nil
                pointType = nil
                pointModality = nil
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            let name = Self.local(elementName)
            depth -= 1
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "ele": elevation = Double(value)
            case "time": time = Self.time(value)
            // GPX's own fix quality, and capture's extension (speed m/s, horizontal accuracy m).
            case "fix": quality.mode = FixMode(spelling: value)
            case "sat": quality.satellites = Int(value)
            case "hdop": quality.hdop = Double(value)
            case "vdop": quality.vdop = Double(value)
            case "pdop": quality.pdop = Double(value)
            case "speed": quality.speed = Double(value)
            case "accuracy": quality.horizontalAccuracy = Double(value)
            case "modality" where point != nil: pointModality = Modality(parsing: value)
            case "type" where inTrack && point == nil && modality == nil: modality = Modality(parsing: value)
            case "type" where point != nil: pointType = value
            case "trkseg": inSegment = false
            case "trk": inTrack = false
            case "trkpt", "rtept", "wpt":
                if let point, let time, !(name == "wpt" && pointType == "marker") {
                    var fix = quality
                    (fix.timestamp, fix.latitude, fix.longitude, fix.altitude) = (time, point.lat, point.lon, elevation)
                    fixes.append((fix, inSegment ? segment : 0, pointModality))
                }
                point = nil
            default: break
            }
            text = ""
        }

        static func local(_ name: String) -> String {
            name.split(separator: ":").last.map(String.init) ?? name
        }

        /// GPX times: ISO 8601 UTC, with or without fractions.
        static func time(_ text: String) -> Int64? {
            if let ms = ISO8601Time.unixMilliseconds(iso8601: text) { return ms }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        }
    }
}
