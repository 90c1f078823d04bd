import CaptureCore
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
        if let correction = clockCorrectionMs {
            lines.append(
                "  clock     host clock was \(Format.span(abs(correction))) \(correction >= 0 ? "behind" : "ahead of") GNSS time; "
                    + "events, motion and pressure moved onto GNSS time")
        }
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
        for attachment in attachments ?? [] {
            var state = UploadRecord.pending(id)
            (state.status, state.reason, state.acknowledged, state.totalLength) =
                (attachment.status, attachment.reason, attachment.acknowledged, attachment.totalLength)
            lines.append("  attached  \(attachment.name) (\(attachment.format.rawValue), id \(attachment.id)): \(state.summary)")
        }
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

    /// `host clock 2 d 0:00:03 behind GNSS (median of 12 fixes, spread 40 ms); times moved onto GNSS time`.
    static func clock(_ clock: ClockReport) -> String {
        var text = "host clock"
        if let offset = clock.offsetMs {
            text += " " + span(abs(offset)) + (offset >= 0 ? " behind" : " ahead of") + " GNSS"
            text += " (median of \(min(clock.fixes, GNSSClock.window)) fixes, spread \(clock.spreadMs ?? 0) ms)"
        } else {
            text += ": no fix from a live receiver yet"
        }
        if let correction = clock.correctionMs {
            text += correction == 0 ? "; right again, times no longer moved" : "; times moved by \(span(abs(correction))) onto GNSS time"
        } else if clock.policy == .never {
            text += "; not moved (--gnss-time never)"
        } else if clock.policy == .auto && clock.hostSynchronized {
            text += "; not moved (the host clock is synchronised)"
        }
        return text
    }

    /// `2 d 3:04:05`, `0:00:04.250`.
    static func span(_ ms: Int64) -> String {
        let days = ms / 86_400_000
        let rest = ms % 86_400_000
        let clock = String(
            format: "%d:%02d:%02d.%03d", rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000)
        return days > 0 ? "\(days) d \(clock)" : clock
    }

    static func counts(_ counts: SampleCounts) -> String {
        "acc \(counts.accelerometer), gyr \(counts.gyroscope), mag \(counts.magnetometer), "
            + "prs \(counts.pressure), fixes \(counts.locations)"
    }
}
