/// Why the configuration could not be read: one line naming the file (or variable or option),
/// the key and what is expected. The command line exits 78 (EX_CONFIG) with it, before starting
/// anything.
package struct DeviceConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package enum Kind: Sendable, Equatable {
        /// The file exists but cannot be read (permissions, a directory…).
        case unreadable(reason: String)
        /// The file is not YAML, or its top level is not a mapping.
        case malformed(reason: String)
        /// A key the file may not hold; `expected` lists the keys allowed there.
        case unknownKey
        /// A value that is not what the key takes.
        case badValue(found: String)
    }

    /// Where: a file path, `$VARIABLE` or `--option`.
    package var place: String
    /// The line in the file, if known (1-based).
    package var line: Int?
    /// The dotted key (empty for the whole file).
    package var key: String
    /// What was expected.
    package var expected: String
    /// What went wrong.
    package var kind: Kind

    /// Creates an error.
    package init(place: String, line: Int? = nil, key: String, expected: String, kind: Kind) {
        self.place = place
        self.line = line
        self.key = key
        self.expected = expected
        self.kind = kind
    }

    /// Whether the fault is in a configuration file, not in a flag or an environment variable.
    package var isInFile: Bool { !place.hasPrefix("$") && !place.hasPrefix("-") }

    /// `/etc/capture/config.yaml:4: upload.max_age: expected a duration such as 500ms, 1s, 30m, 6h or 7d, not 'soon'`.
    package var description: String {
        let at = place + (line.map { ":\($0)" } ?? "")
        switch kind {
        case .unreadable(let reason): return "cannot read the configuration file \(at): \(reason)"
        case .malformed(let reason): return "\(at): not a YAML mapping of settings (\(reason)); \(expected)"
        case .unknownKey: return "\(at): unknown key '\(key)'; expected \(expected)"
        case .badValue(let found):
            let value = found.count > 60 ? String(found.prefix(57)) + "…" : found
            return "\(at): \(key): expected \(expected), not '\(value)'"
        }
    }
}
