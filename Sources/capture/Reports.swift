import CaptureStorage
import Foundation

extension MeasurementSummary {
    /// The human-readable form of `capture show`.
    var text: String {
        var lines: [String] = []
        let span = durationMs.map { " (\(Format.duration($0)))" } ?? ""
        lines.append("measurement \(id): \(status.rawValue), \(modality), \(tracks.count) track(s)")
        lines.append("  time      \(Format.time(start)) → \(end.map(Format.time) ?? "open")\(span)")
        lines.append("  distance  \(Format.distance(distanceMeters)) over clean fixes")
        if let box = boundingBox {
            lines.append(
                "  area      lat \(box.minLatitude)…\(box.maxLatitude), lon \(box.minLongitude)…\(box.maxLongitude)")
        }
        lines.append("  samples   " + Format.counts(counts))
        if let baro = barometricAltitude {
            let what = baro.kind == .relative ? "from first sample, p0 \(baro.seaLevelPressure) hPa" : "QNH \(baro.seaLevelPressure) hPa"
            lines.append(
                "  altitude  barometric (\(what)): \(baro.start) → \(baro.end) m, range \(baro.min)…\(baro.max) m, climb \(baro.climb) m")
        }
        lines.append("  upload    " + upload.text)
        for track in tracks {
            lines.append(
                "  track \(track.number)   \(Format.time(track.start)) → \(track.end.map(Format.time) ?? "open"), "
                    + "\(track.modality), \(Format.distance(track.distanceMeters)), \(track.counts.locations) fixes")
        }
        lines.append("  events")
        for event in events {
            lines.append("    \(Format.time(event.timestamp))  \(event.type)\(event.value.map { " \($0)" } ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}

/// Text formatting shared by the commands.
enum Format {
    static func time(_ ms: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date) + "Z"
    }

    static func duration(_ ms: Int64) -> String {
        let seconds = ms / 1000
        return String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.0f m", metres)
    }

    static func counts(_ counts: SampleCounts) -> String {
        "acc \(counts.accelerometer), gyr \(counts.gyroscope), mag \(counts.magnetometer), "
            + "prs \(counts.pressure), fixes \(counts.locations)"
    }
}
