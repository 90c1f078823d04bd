import CaptureCore
import Foundation

/// What a key's values are: how text (an option, an environment variable, a scalar of the file,
/// a field of `upload.json`) becomes a ``DeviceConfiguration/Value``, and what the file holds.
///
/// Keys share types (`collector.retry_budget` and `upload.max_age` are both durations), so a
/// new key of a type that exists is one declaration in `ConfigKey+All.swift`; a new type is a
/// case here.
package enum ConfigValueType: Sendable, Equatable {
    /// A path made absolute and standardized (`data_dir`).
    case directory
    /// A path as given (`collector.token_file`).
    case path
    /// An http or https URL with a host.
    case url
    /// One word without white space (`auth.client_id`).
    case word
    /// OAuth 2.0 scope tokens separated by spaces (RFC 6749 §3.3: printable ASCII but `"` and
    /// `\\`), kept as one space-separated text (`auth.scope`).
    case scope
    /// One of these words, in any case (`log_level`: `error`, `warning`, `info`, `debug`;
    /// `ride.detect`: `off`, `auto`); the stage that reads it knows what each means.
    case choice([String])
    /// A list of http or https URLs; in the environment separated by commas or spaces.
    case origins
    /// A list of source specs, checked against the registered kinds; in the environment
    /// separated by commas.
    case sources
    /// A list of names, each one word without a slash (`indicator.leds`: LED class names); in
    /// the environment separated by commas.
    case names
    /// A duration (`500ms`, `1s`, `6h`), within `range` seconds if there is one.
    case duration(in: ClosedRange<Double>? = nil)
    /// true/false (also yes/no, on/off, 1/0 as text).
    case bool
    /// A whole number of at least `minimum`.
    case count(atLeast: Int)
    /// A whole number of days, at least 0, or `forever`.
    case days
    /// A size (`512M`, `2GB`), or `unlimited`.
    case size
    /// A distance: metres (`50m`, `50`) or kilometres (`1.5km`), at least 0.
    case distance
    /// A modality, in any case.
    case modality
    /// A list of privacy zones; in the environment `LAT,LON,RADIUS` separated by semicolons, in
    /// the file a list of `{latitude, longitude, radius}` (read by ``ConfigFile``).
    case zones
    /// Text whose form its stage checks when it reads it (`surface.thresholds`: the road surface
    /// library's `SurfaceThresholds`); here only that it is not empty.
    case phrase

    /// How the file holds a value of this type, for the typed read of ``ConfigFile``.
    enum FileValue {
        case bool, int, intOrString, string, strings, zones
    }

    var fileValue: FileValue {
        switch self {
        case .bool: .bool
        case .count: .int
        case .days: .intOrString
        case .origins, .sources, .names: .strings
        case .zones: .zones
        default: .string
        }
    }

    /// Whether the file holds a list (a YAML sequence) for this type.
    var isList: Bool { [.strings, .zones].contains(fileValue) }

    /// The value when nothing sets the key and its default is ``ConfigDefault/unset``.
    var unset: DeviceConfiguration.Value { self == .modality ? .modality(nil) : .none }

    /// A value that is not what the type takes; `found` is the text (or list item) at fault.
    struct BadValue: Error {
        var found: String
    }

    /// Parses `text`. A list is split (on commas, for origins also on white space) when
    /// `split`, else `text` is one item; zones are always split on semicolons.
    func parse(_ text: String, split: Bool, isSource: (String) -> Bool) throws(BadValue) -> DeviceConfiguration.Value {
        func bad() -> BadValue { BadValue(found: text) }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .directory:
            return .text(URL(fileURLWithPath: trimmed).standardizedFileURL.path)
        case .path:
            return .text(trimmed)
        case .word:
            guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isWhitespace || $0.isNewline }) else { throw bad() }
            return .text(trimmed)
        case .scope:
            let tokens = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let allowed = { (c: Character) in c.isASCII && c != "\"" && c != "\\" && (0x21...0x7E).contains(c.asciiValue ?? 0) }
            guard !tokens.isEmpty, tokens.allSatisfy({ $0.allSatisfy(allowed) }) else { throw bad() }
            return .text(tokens.joined(separator: " "))
        case .url:
            guard Self.isHTTPURL(trimmed) else { throw bad() }
            return .text(trimmed)
        case .choice(let words):
            guard words.contains(trimmed.lowercased()) else { throw bad() }
            return .text(trimmed.lowercased())
        case .origins, .sources, .names:
            guard split else { return try parse(items: [trimmed], isSource: isSource) }
            let items = trimmed.split(whereSeparator: { $0 == "," || (self == .origins && $0.isWhitespace) })
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return try parse(items: items, isSource: isSource)
        case .duration(let range):
            guard let span = TimeSpan(parsing: trimmed), range.map({ $0.contains(span.seconds) }) ?? true else { throw bad() }
            return .span(span)
        case .bool:
            switch trimmed.lowercased() {
            case "true", "yes", "on", "1": return .bool(true)
            case "false", "no", "off", "0": return .bool(false)
            default: throw bad()
            }
        case .count(let minimum):
            guard let number = Int(trimmed), number >= minimum else { throw bad() }
            return .int(number)
        case .days:
            if trimmed.lowercased() == "forever" { return .int(nil) }
            guard let number = Int(trimmed), number >= 0 else { throw bad() }
            return .int(number)
        case .size:
            if ["unlimited", "none"].contains(trimmed.lowercased()) { return .size(nil) }
            guard let size = ByteSize(parsing: trimmed) else { throw bad() }
            return .size(size)
        case .distance:
            let lower = trimmed.lowercased()
            let (number, scale): (Substring, Double) =
                lower.hasSuffix("km") ? (lower.dropLast(2), 1000) : lower.hasSuffix("m") ? (lower.dropLast(), 1) : (lower[...], 1)
            guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else { throw bad() }
            return .metres(value * scale)
        case .modality:
            guard let modality = Modality(parsing: trimmed) else { throw bad() }
            return .modality(modality)
        case .phrase:
            guard !trimmed.isEmpty else { throw bad() }
            return .text(trimmed)
        case .zones:
            var zones: [PrivacyZone] = []
            for part in trimmed.split(separator: ";") where !part.trimmingCharacters(in: .whitespaces).isEmpty {
                let numbers = part.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard numbers.count == 3, let latitude = numbers[0], let longitude = numbers[1], let radius = numbers[2],
                    let zone = PrivacyZone(latitude: latitude, longitude: longitude, radius: radius)
                else { throw bad() }
                zones.append(zone)
            }
            return .zones(zones)
        }
    }

    /// Checks the items of a list (origins, sources or names) one by one.
    func parse(items: [String], isSource: (String) -> Bool) throws(BadValue) -> DeviceConfiguration.Value {
        for item in items {
            let valid =
                switch self {
                case .sources: isSource(item)
                case .names: !item.isEmpty && !item.contains("/") && !item.contains(where: \.isWhitespace)
                default: URLOrigin(item) != nil
                }
            guard valid else { throw BadValue(found: item) }
        }
        return .list(items)
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host != nil
    }
}
