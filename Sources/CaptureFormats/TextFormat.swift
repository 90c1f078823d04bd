import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Number and time spellings shared by the text formats (and the plot's SVG).
package enum TextFormat {
    /// Degrees with 7 decimals (about 1 cm), never in exponent notation.
    package static func degrees(_ value: Double) -> String { decimal(value, 7) }

    /// A fixed-point decimal (valid as xsd:decimal and JSON); `0` for a non-finite value.
    package static func decimal(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.\(places)f", value)
    }

    /// `2026-11-22T02:31:58.123Z` from Unix milliseconds.
    package static func isoTime(_ ms: Int64) -> String {
        var seconds = time_t(ms.quotientAndRemainder(dividingBy: 1000).quotient)
        var millis = ms % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(millis))
    }

    /// Text escaped for XML content and attribute values.
    package static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
