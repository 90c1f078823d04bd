import Foundation

/// A setting of `capture`: its key in the file, environment variable, option, type, default,
/// what a value must look like and what it means. Every key is declared once, in
/// `ConfigKey+All.swift`, and listed in ``allCases``; the resolver, `capture config` and the
/// check of docs/configuration.md's table (`ConfigDocsTests`) follow that list.
package struct ConfigKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The key as written in the file, dotted: `upload.max_age`.
    package let name: String
    /// The environment variable that sets it: `CAPTURE_` and the key in capitals with dots as
    /// underscores, except four names older than the file (`CAPTURE_HOME`, `CAPTURE_UPLOAD_URL`,
    /// `CAPTURE_TOKEN_FILE`, `CAPTURE_TRUSTED_ORIGINS`).
    package let environmentVariable: String
    /// The command-line option that sets it, if any, as messages name it: `--url`.
    package let option: String?
    /// The field of `<data dir>/upload.json` that sets it, below the file (the collector's
    /// three keys only; the file is older than the configuration file).
    package let uploadJSONField: String?
    /// What its values are.
    package let type: ConfigValueType
    /// Its value when nothing sets it.
    package let defaultValue: ConfigDefault
    /// What a value must look like, for error messages (“expected …”).
    package let expected: String
    /// One line on what the key means.
    package let meaning: String

    init(
        _ name: String, environment: String, option: String? = nil, uploadJSON: String? = nil, type: ConfigValueType,
        default defaultValue: ConfigDefault, expected: String, meaning: String
    ) {
        self.name = name
        environmentVariable = environment
        self.option = option
        uploadJSONField = uploadJSON
        self.type = type
        self.defaultValue = defaultValue
        self.expected = expected
        self.meaning = meaning
    }

    /// The key's path in the file: `["upload", "max_age"]`.
    package var path: [String] { name.split(separator: ".").map(String.init) }

    package var description: String { name }

    /// The key named `name` (dotted), if there is one.
    package init?(name: String) {
        guard let key = Self.byName[name] else { return nil }
        self = key
    }

    package static func == (lhs: ConfigKey, rhs: ConfigKey) -> Bool { lhs.name == rhs.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// In the order of ``allCases``, which is `capture config`'s.
    package static func < (lhs: ConfigKey, rhs: ConfigKey) -> Bool {
        (order[lhs.name] ?? .max, lhs.name) < (order[rhs.name] ?? .max, rhs.name)
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
    private static let order = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1.name, $0) })

    /// The sections of the file and their keys; any other key is an error.
    static let sections: [String: [String]] = Dictionary(
        grouping: allCases.filter { $0.path.count == 2 }, by: { $0.path[0] }
    ).mapValues { $0.map { $0.path[1] } }
}

/// A key's value when nothing sets it, and how docs/configuration.md writes it.
package struct ConfigDefault: Sendable, ExpressibleByStringLiteral {
    enum Kind: Sendable {
        /// Text in the syntax a user writes (`15m`, `100M`, `never`), parsed by the key's type.
        case text(String)
        /// Unset: `none` (``ConfigValueType/unset``).
        case unset
        /// Text made from the environment, parsed by the key's type (`data_dir`).
        case computed(@Sendable ([String: String]) -> String)
    }

    let kind: Kind
    /// How the default column of docs/configuration.md begins for the key: `` `15m` ``, `none`.
    package let documented: String

    /// A default written as a user would write it: `"15m"`, `"100M"`, `"never"`.
    package init(stringLiteral text: String) {
        kind = .text(text)
        documented = "`\(text)`"
    }

    /// No value: `none`.
    package static let unset = ConfigDefault(kind: .unset, documented: "none")

    /// No value; `documented` says what happens instead (“a trace's start mark, else `UNKNOWN`”).
    package static func unset(documented: String) -> ConfigDefault {
        ConfigDefault(kind: .unset, documented: documented)
    }

    /// The empty list, `[]`.
    package static let empty = ConfigDefault(kind: .text(""), documented: "`[]`")

    /// A value made from the environment (`$XDG_DATA_HOME`, `$HOME`).
    static func computed(documented: String, _ make: @escaping @Sendable ([String: String]) -> String) -> ConfigDefault {
        ConfigDefault(kind: .computed(make), documented: documented)
    }

    private init(kind: Kind, documented: String) {
        self.kind = kind
        self.documented = documented
    }

    /// The value, for a key of `type`, in `environment`.
    func value(_ type: ConfigValueType, environment: [String: String]) -> DeviceConfiguration.Value {
        let text: String
        switch kind {
        case .unset: return type.unset
        case .text(let written): text = written
        case .computed(let make): text = make(environment)
        }
        // The declarations' defaults are checked by `everyDefaultIsAValueOfItsType`.
        guard let value = try? type.parse(text, split: true, isSource: { _ in true }) else {
            preconditionFailure("the default of a \(type) key does not parse: '\(text)'")
        }
        return value
    }
}
