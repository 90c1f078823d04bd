import ArgumentParser
import CaptureConfig
import CaptureCore
import Foundation

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the effective settings and where each came from.",
        discussion: """
            Every setting comes from the first of: a command-line option, an environment \
            variable, the configuration file, <data dir>/upload.json (collector.url, \
            collector.token_file and collector.trusted_origins only), the default. The file is \
            $CAPTURE_CONFIG, else $XDG_CONFIG_HOME/capture/config.yaml (~/.config/capture/\
            config.yaml), else /etc/capture/config.yaml; docs/configuration.md lists every key \
            and its variable, and dist/config.example.yaml is a commented example.

            The token file's path is shown, the token never. An unknown key, a bad value or an \
            unreadable or malformed file is one line naming the file, the key and what is \
            expected, and exit 78, here as for every other command.

            --check FILE checks FILE alone (as if it were $CAPTURE_CONFIG) and prints its \
            settings; use it before installing a file on a device.
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: ArgumentHelp("Check this file instead of the one looked up.", valueName: "file"))
    var check: String?

    func run() throws {
        let device = try DeviceSettings.load(data.configFlags, file: check)
        let rows = ConfigKey.allCases.map { key in Row(key: key, setting: device.entries[key]!) }
        if output.json {
            try printJSON(Report(file: device.file?.path, settings: rows))
            return
        }
        print(
            "configuration file: "
                + (device.file?.path ?? "none ($CAPTURE_CONFIG is unset; neither \(device.filePlace) nor \(ConfigFile.systemPath) exists)"))
        let width = ConfigKey.allCases.map(\.name.count).max()! + 2
        let valueWidth = min(44, rows.map(\.text.count).max()! + 2)
        for row in rows {
            let name = row.key.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let value = row.text.count < valueWidth ? row.text.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : row.text + "  "
            print(name + value + row.origin)
        }
    }

    /// `capture config --json`.
    struct Report: Encodable {
        var file: String?
        var settings: [Row]
    }

    /// One setting: its key, value, where it came from and the variable that would set it.
    struct Row: Encodable {
        var key: ConfigKey
        var setting: DeviceConfiguration.Setting<DeviceConfiguration.Value>

        /// The value as text: `15m`, `[trace:/x, gpsd]`, `none`.
        var text: String {
            switch setting.value {
            case .text(let text): text
            case .bool(let flag): String(flag)
            case .int(let number): number.map(String.init) ?? "forever"
            case .span(let span): span.description
            case .size(let size): size.map { "\($0.bytes) bytes" } ?? "unlimited"
            case .list(let items): "[" + items.joined(separator: ", ") + "]"
            case .zones(let zones): "[" + zones.map { "\($0.latitude),\($0.longitude) r=\($0.radius)m" }.joined(separator: "; ") + "]"
            case .modality(let modality): modality?.rawValue ?? "none (a trace's start mark, else UNKNOWN)"
            case .level(let level): level.rawValue
            case .drop(let drop): drop.rawValue
            case .none: "none"
            }
        }

        /// `--url`, `$CAPTURE_UPLOAD_URL`, `"collector.url" in FILE`, `default`.
        var origin: String { setting.origin.description }

        /// `flag`, `env`, `file` or `default`.
        var kind: String {
            switch setting.origin {
            case .option: "flag"
            case .environment: "env"
            case .file: "file"
            case .builtIn: "default"
            }
        }

        enum CodingKeys: String, CodingKey { case key, value, origin, source, environment }

        func encode(to encoder: any Encoder) throws {
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
            case .level(let level): try container.encode(level.rawValue, forKey: .value)
            case .drop(let drop): try container.encode(drop.rawValue, forKey: .value)
            case .none: try container.encodeNil(forKey: .value)
            }
        }
    }
}
