import ArgumentParser
import CaptureConfig
import CaptureWiring
import CaptureCore
import CaptureStorage
import Foundation

/// `--data-dir` and the log level, shared by every command. Both, like every setting, also come
/// from the environment and the configuration file (docs/configuration.md).
struct DataDirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where measurements are kept.",
            discussion:
                "Default: $CAPTURE_HOME, else data_dir in the configuration file, else $XDG_DATA_HOME/capture, else ~/.local/share/capture.",
            valueName: "dir"))
    var dataDirectory: String?

    @Option(
        help: ArgumentHelp(
            "What goes to stderr besides results: error, warning (default), info or debug.", valueName: "level"))
    var logLevel: String?

    @Flag(name: .short, help: "More messages on stderr: -v info, -vv debug.")
    var verbose: Int

    /// The configuration flags these options give.
    var configFlags: [ConfigKey: DeviceConfiguration.Flag] {
        var flags: [ConfigKey: DeviceConfiguration.Flag] = [:]
        if let dataDirectory, !dataDirectory.isEmpty { flags[.dataDirectory] = .init(dataDirectory, option: "--data-dir") }
        if let logLevel {
            flags[.logLevel] = .init(logLevel, option: "--log-level")
        } else if verbose > 0 {
            flags[.logLevel] = .init(verbose == 1 ? "info" : "debug", option: "-" + String(repeating: "v", count: verbose))
        }
        return flags
    }

    /// The device's configuration with these options and `extra` flags of the command.
    func device(_ extra: [ConfigKey: DeviceConfiguration.Flag] = [:]) throws -> DeviceConfiguration {
        try DeviceConfiguration.forProcess(configFlags.merging(extra) { _, new in new })
    }

    /// The resolved, absolute data directory: --data-dir, $CAPTURE_HOME, `data_dir` in the
    /// configuration file, else the XDG default. A bad configuration ends the command (exit 78).
    var path: String {
        DeviceSettings.loadOrExit(configFlags).dataDirectory.value
    }

    /// ``path`` for the commands that reach a running recorder (status, pause, resume, modality,
    /// stop): a broken configuration file is a warning there, not an end
    /// (``DeviceSettings/loadForControl(_:)``).
    var controlPath: String {
        DeviceSettings.loadForControl(configFlags).dataDirectory.value
    }

    func openStore(durability: Store.Durability = .everyCommit) throws -> Store {
        try Store(directory: path, durability: durability)
    }
}

/// `--json`, for commands with a machine-readable form.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text, for scripts.")
    var json = false

    /// `value` as JSON with --json, else `text`.
    func print(_ value: some Encodable, _ text: @autoclosure () -> String) throws {
        if json { try printJSON(value) } else { Swift.print(text()) }
    }

    /// `value` as one compact JSON line with --json, else `lines`; flushed, for outputs that
    /// come in steps (`capture login`).
    func printLine(_ value: some Encodable, _ lines: @autoclosure () -> [String]) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Swift.print(String(decoding: try encoder.encode(value), as: UTF8.self))
        } else {
            lines().forEach { Swift.print($0) }
        }
        fflush(nil)
    }
}

/// Prints a value as pretty, key-sorted JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(JSONString.compactingEmpty(String(decoding: try encoder.encode(value), as: UTF8.self)))
}

extension DataDirectoryOptions {
    /// The store, if the data directory already has one; commands that only read or refuse
    /// create nothing on disk.
    func existingStore() throws -> Store? { try DataDirectory.existingStore(at: path) }
}
