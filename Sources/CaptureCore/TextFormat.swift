import Foundation

/// Times, durations and distances as `capture` prints them (UTC, `h:mm:ss`, metres or km), and
/// what a status says of the clocks.
public enum TextFormat {
    /// `2026-11-27 10:44:31Z` (UTC) for Unix ms.
    public static func time(_ ms: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date) + "Z"
    }

    /// `1:02:03` for milliseconds.
    public static func duration(_ ms: Int64) -> String {
        let seconds = ms / 1000
        return String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    /// `1 window`, `3 windows`: a count with its noun, `plural` when it is not one.
    public static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// `850 m`, `12.34 km`.
    public static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.0f m", metres)
    }

    /// `host clock 2 d 0:00:03 behind GNSS (median of 12 fixes, spread 40 ms); times moved onto GNSS time`.
    public static func clock(_ clock: ClockReport) -> String {
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
    public static func span(_ ms: Int64) -> String {
        let days = ms / 86_400_000
        let rest = ms % 86_400_000
        let clock = String(
            format: "%d:%02d:%02d.%03d", rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000)
        return days > 0 ? "\(days) d \(clock)" : clock
    }
}
