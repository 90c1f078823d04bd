import CaptureCore
import CaptureStorage
import Foundation

extension MeasurementSummary {
    /// The human-readable form of `capture show`.
    var text: String {
        var lines: [String] = []
        let span = durationMs.map { " (\(TextFormat.duration($0)))" } ?? ""
        lines.append("measurement \(id): \(status.rawValue), \(modality), \(tracks.count) track(s)")
        // Open: recording, or its recorder gone (`interrupted`): not said to go on then.
        let interrupted = status == .interrupted
        let open = interrupted ? "interrupted" : "open"
        lines.append("  time      \(TextFormat.time(start)) → \(end.map(TextFormat.time) ?? open)\(span)")
        let headline = figures.headline(open: interrupted ? "until the interruption" : "so far")
        lines.append("  ride      \(headline) (distance over clean fixes)")
        if let correction = clockCorrectionMs {
            lines.append(
                "  clock     host clock was \(TextFormat.span(abs(correction))) \(correction >= 0 ? "behind" : "ahead of") GNSS time; "
                    + "events, motion and pressure moved onto GNSS time")
        }
        if let box = boundingBox {
            lines.append(
                "  area      lat \(box.minLatitude)…\(box.maxLatitude), lon \(box.minLongitude)…\(box.maxLongitude)")
        }
        lines.append("  samples   " + counts.text)
        if let altitude = figures.altitudeText {
            let qnh = figures.altitude?.reference == .seaLevel && figures.altitude?.source == .barometric
                ? barometricAltitude.map { " (QNH \($0.seaLevelPressure) hPa)" } ?? "" : ""
            lines.append("  altitude  \(altitude)\(qnh)")
        }
        if let part {
            lines.append("  part      \(part.number) of \(part.count) that measurement \(part.original) was cut into for the payload limit")
        }
        lines.append("  upload    " + upload.text)
        for attachment in attachments ?? [] {
            var state = UploadRecord.pending(id)
            (state.status, state.reason, state.acknowledged, state.totalLength) =
                (attachment.status, attachment.reason, attachment.acknowledged, attachment.totalLength)
            lines.append("  attached  \(attachment.name) (\(attachment.format.rawValue), id \(attachment.id)): \(state.summary)")
        }
        for marker in markers ?? [] {
            let place = marker.latitude.flatMap { latitude in marker.longitude.map { " at \(latitude), \($0)" } } ?? ", no fix near"
            lines.append("  marker    \(TextFormat.time(marker.time))\(place) (\(marker.source))")
        }
        for track in tracks {
            lines.append(
                "  track \(track.number)   \(TextFormat.time(track.start)) → \(track.end.map(TextFormat.time) ?? open), "
                    + "\(modalities(of: track)), \(TextFormat.distance(track.distanceMeters)), \(track.counts.locations) fixes")
        }
        lines.append("  events")
        for event in events {
            lines.append("    \(TextFormat.time(event.timestamp))  \(event.type)\(event.value.map { " \($0)" } ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}

extension SampleCounts {
    /// `acc 1000, gyr 1000, mag 0, prs 10, fixes 10`.
    var text: String {
        "acc \(accelerometer), gyr \(gyroscope), mag \(magnetometer), "
            + "prs \(pressure), fixes \(locations)"
    }
}

extension MeasurementListEntry {
    /// `capture list`'s table: a header line, then a line per entry.
    static func table(_ entries: [MeasurementListEntry]) -> [String] {
        let header = "ID      STATUS       MODALITY    START                 DURATION  TRACKS  FIXES   SAMPLES   UPLOAD"
        return [header] + entries.map(\.row)
    }

    var row: String {
        // Every kind but fixes, which have their own column: a barometer-only measurement is not 0.
        let samples = counts.accelerometer + counts.gyroscope + counts.magnetometer + counts.pressure
        let cells: [(String, Int)] = [
            (String(id), 8), (status.rawValue, 13), (modality, 12), (TextFormat.time(start), 22),
            (end.map { TextFormat.duration($0 - start) } ?? "-", 10), (String(tracks), 8), (String(counts.locations), 8),
            (String(samples), 10),
        ]
        return cells.map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined() + upload.text
            + (part.map { " (\($0.text))" } ?? "")
    }
}

extension MeasurementSummary {
    /// The modalities of `track` in order: the one at its start, then each change made on it
    /// (`BICYCLE → WALKING`), so that a change given during a track is not hidden by its start's.
    func modalities(of track: Track) -> String {
        var names = [track.modality]
        for event in events where event.type == EventType.modalityTypeChange.name && event.timestamp > track.start {
            guard track.end.map({ event.timestamp <= $0 }) ?? true, let value = event.value else { continue }
            if value != names.last { names.append(value) }
        }
        return names.joined(separator: " → ")
    }
}
