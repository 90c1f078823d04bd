import Foundation

/// What `capture config` shows: the file read and every setting with its value and origin, in
/// ``ConfigKey/allCases`` order. Its JSON form is `capture config --json`; ``text`` the table.
package struct ConfigReport: Encodable, Sendable {
    /// The configuration file read, if any.
    package var file: String?
    package var settings: [Row]
    /// Where the file was looked for, for the line that says none was found.
    private var searched: String

    package init(_ device: DeviceConfiguration) {
        file = device.file?.path
        settings = ConfigKey.allCases.compactMap { key in device.entries[key].map { Row(key: key, setting: $0) } }
        searched = "none ($CAPTURE_CONFIG is unset; neither \(device.filePlace) nor \(ConfigFile.systemPath) exists)"
    }

    private enum CodingKeys: String, CodingKey { case file, settings }

    /// The file line, then one line per setting: name, value, origin, in aligned columns.
    package var text: String {
        var lines = ["configuration file: " + (file ?? searched)]
        let width = (settings.map(\.key.name.count).max() ?? 0) + 2
        let valueWidth = min(44, (settings.map(\.text.count).max() ?? 0) + 2)
        for row in settings {
            let name = row.key.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let value = row.text.count < valueWidth ? row.text.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : row.text + "  "
            lines.append(name + value + row.origin)
        }
        return lines.joined(separator: "\n")
    }


    /// One setting: its key, value, where it came from and the variable that would set it.
    package struct Row: Encodable, Sendable {
        package var key: ConfigKey
        package var setting: DeviceConfiguration.Setting<DeviceConfiguration.Value>

        /// The value as text: `15m`, `[trace:/x, gpsd]`, `none`.
        package var text: String {
            switch setting.value {
            case .text(let text): text
            case .bool(let flag): String(flag)
            case .int(let number): number.map(String.init) ?? "forever"
            case .span(let span): span.description
            case .size(let size): size.map { "\($0.bytes) bytes" } ?? "unlimited"
            case .list(let items): "[" + items.joined(separator: ", ") + "]"
            case .zones(let zones): "[" + zones.map { "\($0.latitude),\($0.longitude) r=\($0.radius)m" }.joined(separator: "; ") + "]"
            case .modality(let modality): modality?.rawValue ?? "none (a trace's start mark, else UNKNOWN)"
            case .metres(let metres): metres == metres.rounded() && metres < 1e15 ? "\(Int64(metres))m" : "\(metres)m"
            case .none: "none"
            }
        }

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
