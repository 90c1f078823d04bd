package import CaptureCore

/// Writes GPX 1.1 as the GPX export does: one `<trk>` with one `<trkseg>` per track; each point
/// has `<ele>`, `<time>`, the fix quality the receiver reported (`<fix>` 2d/3d, `<sat>`,
/// `<hdop>`, `<vdop>`, `<pdop>`) and, in `<extensions>`, speed (m/s) and horizontal accuracy (m)
/// in the `capture` namespace, and the modality on the first point after a change of it.
/// ``GPXReader`` reads all of it back.
package enum GPXWriter {
    /// The document up to its first `<trkseg>`: metadata (with `description`, the ride's
    /// figures, as `<desc>`), the rider's markers that have a place as waypoints (``waypoint(_:number:)``)
    /// and the track's name and `<type>` (the modality it starts with).
    package static func header(
        measurement id: Int64, startTime: Int64, modality: String, description: String? = nil, markers: [Marker] = []
    ) -> String {
        // GPX 1.1 orders metadata: name, desc, …, time.
        let desc = description.map { "\n    <desc>\(TextFormat.xmlEscaped($0))</desc>" } ?? ""
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="capture" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:capture="urn:capture:gpx:1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
          <metadata>
            <name>measurement \(id)</name>\(desc)
            <time>\(TextFormat.isoTime(startTime))</time>
          </metadata>
        \(markers.enumerated().map { waypoint($1, number: $0 + 1) }.joined())  <trk>
            <name>measurement \(id)</name>
            <type>\(TextFormat.xmlEscaped(modality))</type>

        """
    }

    /// A marker with a place as a `<wpt>` line of type `marker` (``GPXReader`` reads no fix from
    /// it), named `marker N`, what made it as its `<desc>`; nothing for one without a place.
    package static func waypoint(_ marker: Marker, number: Int) -> String {
        guard let latitude = marker.latitude, let longitude = marker.longitude else { return "" }
        return "  <wpt lat=\"\(TextFormat.degrees(latitude))\" lon=\"\(TextFormat.degrees(longitude))\">"
            + "<time>\(TextFormat.isoTime(marker.time))</time><name>marker \(number)</name>"
            + "<desc>\(TextFormat.xmlEscaped(marker.source))</desc><type>marker</type></wpt>\n"
    }

    /// Opens a track's segment.
    package static let segmentStart = "    <trkseg>\n"
    /// Closes a track's segment.
    package static let segmentEnd = "    </trkseg>\n"
    /// Closes the track and the document.
    package static let footer = "  </trk>\n</gpx>\n"

    /// One `<trkpt>` line; `modality` where it changed since the previous point.
    package static func point(_ fix: Fix, modality: String? = nil) -> String {
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
