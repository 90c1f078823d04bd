import Foundation

/// What `capture config` shows: the file read and every setting with its value and origin, in
/// ``ConfigKey/allCases`` order. Its JSON form is `capture config --json`; the front end makes
/// the table.
package struct ConfigReport: Encodable, Sendable {
    /// The configuration file read, if any.
    package var file: String?
    package var settings: [Row]
    /// Where the file was looked for, in order, when none was found (not in the JSON).
    package var searched: [String]

    package init(_ device: DeviceConfiguration) {
        file = device.file?.path
        settings = ConfigKey.allCases.compactMap { key in device.entries[key].map { Row(key: key, setting: $0) } }
        searched = [device.filePlace, ConfigFile.systemPath]
    }

    private enum CodingKeys: String, CodingKey { case file, settings }

    /// One setting: its key, value, where it came from and the variable that would set it.
    package struct Row: Encodable, Sendable {
        package var key: ConfigKey
        package var setting: DeviceConfiguration.Setting<DeviceConfiguration.Value>

        /// `--url`, `$CAPTURE_UPLOAD_URL`, `"collector.url" in FILE`, `default`.
        package var origin: String { setting.origin.description }

        /// `flag`, `env`, `file` or `default`.
        package var kind: String {
            switch setting.origin {
            case .option: "flag"
            case .environment: "env"
            case .file: "file"
            case .builtIn: "default"
            }
        }

        enum CodingKeys: String, CodingKey { case key, value, origin, source, environment }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key.name, forKey: .key)
            try container.encode(origin, forKey: .origin)
            try container.encode(kind, forKey: .source)
            try container.encode(key.environmentVariable, forKey: .environment)
            switch setting.value {
            case .text(let text): try container.encode(text, forKey: .value)
            case .bool(let flag): try container.encode(flag, forKey: .value)
            case .int(let number): try container.encode(number, forKey: .value)
            case .span(let span): try container.encode(span.description, forKey: .value)
            case .size(let size): try container.encode(size?.bytes, forKey: .value)
            case .list(let items): try container.encode(items, forKey: .value)
            case .zones(let zones): try container.encode(zones, forKey: .value)
            case .modality(let modality): try container.encode(modality?.rawValue, forKey: .value)
            case .metres(let metres): try container.encode(metres, forKey: .value)
            case .none: try container.encodeNil(forKey: .value)
            }
        }
    }
}
