import ArgumentParser
import CaptureCore
import CaptureStorage
import Foundation

/// `--data-dir`, shared by every command.
struct DataDirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where measurements are kept.",
            discussion: "Default: $CAPTURE_HOME, else $XDG_DATA_HOME/capture, else ~/.local/share/capture.",
            valueName: "dir"))
    var dataDirectory: String?

    /// The resolved, absolute data directory.
    var path: String {
        let environment = ProcessInfo.processInfo.environment
        let chosen: String
        if let dataDirectory, !dataDirectory.isEmpty {
            chosen = dataDirectory
        } else if let home = environment["CAPTURE_HOME"], !home.isEmpty {
            chosen = home
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            chosen = xdg + "/capture"
        } else {
            chosen = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/capture"
        }
        return URL(fileURLWithPath: chosen).standardizedFileURL.path
    }

    func openStore(durability: Store.Durability = .everyCommit) throws -> Store {
        try Store(directory: path, durability: durability)
    }
}

/// `--json`, for commands with a machine-readable form.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text, for scripts.")
    var json = false
}

/// Prints a value as pretty, key-sorted JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

extension DataDirectoryOptions {
    /// The store, if the data directory already has one; commands that only read or refuse
    /// create nothing on disk.
    func existingStore() throws -> Store? {
        guard FileManager.default.fileExists(atPath: path + "/capture.sqlite") else { return nil }
        return try openStore()
    }
}
