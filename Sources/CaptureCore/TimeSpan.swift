/// A length of time as people write it in a config file: `500ms`, `1s`, `90s`, `30m`, `6h`,
/// `7d`, or a bare number of seconds (`1.5`).
public struct TimeSpan: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The length in seconds (finite, ≥ 0).
    public let seconds: Double

    /// Creates a span, or nil if `seconds` is negative or not finite.
    public init?(seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        self.seconds = seconds
    }

    /// Parses `500ms`, `1s`, `30m`, `6h`, `7d` or a bare number of seconds; nil for anything else.
    public init?(parsing text: String) {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        let trimmed = text.trimmingSpaces()
        var number = Substring(trimmed)
        var scale = 1.0
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number)
        else { return nil }
        self.init(seconds: value * scale)
    }

    /// Examples of the accepted spellings, for error messages.
    public static let examples = "500ms, 1s, 30m, 6h or 7d"

    /// The shortest exact spelling: `6h`, `30m`, `1s`, `1.5s`, `250ms`.
    public var description: String {
        for (suffix, unit) in [("d", 86_400.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0)]
        where seconds >= unit && (seconds / unit).rounded() == seconds / unit {
            return "\(Int(seconds / unit))\(suffix)"
        }
        if seconds < 1, (seconds * 1000).rounded() == seconds * 1000 { return "\(Int(seconds * 1000))ms" }
        return "\(seconds)s"
    }

    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.seconds < rhs.seconds }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
