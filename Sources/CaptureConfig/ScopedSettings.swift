package import CaptureCore

/// The resolved keys under one prefix, as a stage reads them (``DeviceConfiguration/settings(under:)``).
struct ScopedSettings: SettingsReader {
    let entries: [ConfigKey: DeviceConfiguration.Setting<SettingValue>]
    /// The line of each key the file sets.
    let lines: [ConfigKey: Int]
    /// `ride`, or nil for full dotted names.
    let prefix: String?

    private func dotted(_ name: String) -> String { prefix.map { $0 + "." + name } ?? name }

    private func key(_ name: String) -> ConfigKey? { ConfigKey(name: dotted(name)) }

    func value(_ name: String) -> SettingValue? { key(name).flatMap { entries[$0]?.value } }

    func invalid(_ name: String, found: String) -> SettingsError {
        guard let key = key(name) else {
            return SettingsError(place: "capture", line: nil, key: dotted(name), expected: "a declared key", found: found)
        }
        let origin = entries[key]?.origin ?? .builtIn
        let line: Int? = if case .file = origin { lines[key] } else { nil }
        return SettingsError(place: origin.place, line: line, key: key.name, expected: key.expected, found: found)
    }
}

extension DeviceConfigurationError {
    /// A stage's refusal of a value, in the configuration's words.
    package init(_ error: SettingsError) {
        self.init(place: error.place, line: error.line, key: error.key, expected: error.expected, kind: .badValue(found: error.found))
    }
}
