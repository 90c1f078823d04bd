/// A setting's value as the configuration resolved it: already checked against its key's type
/// (a duration is a ``TimeSpan``, a size a ``ByteSize``), before any stage reads it.
public enum SettingValue: Sendable, Equatable {
    case text(String)
    case bool(Bool)
    /// A whole number, or nil for `forever`.
    case int(Int?)
    case span(TimeSpan)
    /// A size, or nil for `unlimited`.
    case size(ByteSize?)
    case list([String])
    case zones([PrivacyZone])
    case modality(Modality?)
    /// A distance in metres.
    case metres(Double)
    case none
}

/// A setting a stage cannot take: where its value came from (a file and line, `$VARIABLE` or
/// `--option`), the key, what the stage expects and what it found. The front end says it in one
/// line and exits 78 (EX_CONFIG).
public struct SettingsError: Error, Sendable, Equatable {
    /// A file path, `$VARIABLE`, `--option` or `default`.
    public var place: String
    /// The line in the file (1-based), if the value came from one.
    public var line: Int?
    /// The dotted key: `ride.min_distance`.
    public var key: String
    /// What the key takes.
    public var expected: String
    /// The value at fault, as text.
    public var found: String

    public init(place: String, line: Int?, key: String, expected: String, found: String) {
        (self.place, self.line, self.key, self.expected, self.found) = (place, line, key, expected, found)
    }
}

/// One stage's view of the configuration: the keys under its prefix (the ride rules read
/// `detect` and `min_distance` of `ride.*`). Each stage makes its own settings from a reader,
/// with their validation, so that the configuration knows the keys but no stage's types.
///
/// ```swift
/// let rules = try RideSettings(reading: device.settings(under: "ride"))
/// ```
public protocol SettingsReader: Sendable {
    /// The resolved value of `key` (relative to the prefix); nil for a key the configuration
    /// does not declare.
    func value(_ key: String) -> SettingValue?
    /// The error for `key`'s value, naming where it came from: a stage's own check failed.
    func invalid(_ key: String, found: String) -> SettingsError
}

extension SettingsReader {
    /// `key`'s value, or the error that names it when the value is not of the kind asked for.
    private func read<T>(_ key: String, _ cast: (SettingValue) -> T?) throws(SettingsError) -> T {
        let value = self.value(key)
        guard let value, let typed = cast(value) else {
            throw invalid(key, found: value.map { "\($0)" } ?? "nothing (the key is not declared)")
        }
        return typed
    }

    /// A duration.
    public func duration(_ key: String) throws(SettingsError) -> TimeSpan {
        try read(key) { if case .span(let span) = $0 { span } else { nil } }
    }

    /// A duration in whole milliseconds.
    public func milliseconds(_ key: String) throws(SettingsError) -> Int64 {
        Int64((try duration(key).seconds * 1000).rounded())
    }

    /// true or false.
    public func bool(_ key: String) throws(SettingsError) -> Bool {
        try read(key) { if case .bool(let flag) = $0 { flag } else { nil } }
    }

    /// A whole number, nil for `forever`.
    public func count(_ key: String) throws(SettingsError) -> Int? {
        try read(key) { if case .int(let number) = $0 { .some(number) } else { nil } }
    }

    /// A size, nil for `unlimited`.
    public func size(_ key: String) throws(SettingsError) -> ByteSize? {
        try read(key) { if case .size(let size) = $0 { .some(size) } else { nil } }
    }

    /// A distance in metres.
    public func metres(_ key: String) throws(SettingsError) -> Double {
        try read(key) { if case .metres(let metres) = $0 { metres } else { nil } }
    }

    /// Text, nil when the key is unset.
    public func text(_ key: String) throws(SettingsError) -> String? {
        try read(key) {
            switch $0 {
            case .text(let text): .some(text)
            case .none: .some(nil)
            default: nil
            }
        }
    }

    /// A list of words (source specs, origins).
    public func list(_ key: String) throws(SettingsError) -> [String] {
        try read(key) { if case .list(let items) = $0 { items } else { nil } }
    }

    /// Privacy zones.
    public func zones(_ key: String) throws(SettingsError) -> [PrivacyZone] {
        try read(key) { if case .zones(let zones) = $0 { zones } else { nil } }
    }

    /// A modality, nil when unset.
    public func modality(_ key: String) throws(SettingsError) -> Modality? {
        try read(key) { if case .modality(let modality) = $0 { .some(modality) } else { nil } }
    }

    /// One of `T`'s words (`off`, `auto`).
    public func choice<T: RawRepresentable<String>>(_ key: String, as type: T.Type = T.self) throws(SettingsError) -> T {
        let word = try read(key) { if case .text(let text) = $0 { text } else { nil } }
        guard let chosen = T(rawValue: word) else { throw invalid(key, found: word) }
        return chosen
    }
}

/// How much `capture` writes to stderr besides its results.
public enum LogLevel: String, Sendable, CaseIterable, Comparable, Codable {
    case error, warning, info, debug

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .info: 2
        case .debug: 3
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
