import CaptureConfig
import CaptureSensors
import Foundation
import Logging
import Synchronization

/// The device's configuration as the command line sees it: loaded once per set of flags, with
/// the sources checked against the registered kinds. A bad file or value ends the command with
/// exit 78 (EX_CONFIG) before it starts anything.
enum DeviceSettings {
    private static let cache = Mutex<(flags: [ConfigKey: DeviceConfiguration.Flag], device: DeviceConfiguration)?>(nil)

    /// Whether a `capture.sources` entry names a registered kind of source.
    static func isSource(_ spec: String) -> Bool {
        guard let parsed = try? SourceRegistry.standard.parse(spec) else { return false }
        let (kind, argument) = parsed
        // Kinds whose argument is required say so in their syntax: `trace:FILE`, `nmea:PATH`.
        return argument.map { !$0.isEmpty } ?? kind.syntax.hasPrefix(kind.name + "[")
    }

    /// Loads the configuration (or returns the one loaded with the same flags) and applies its
    /// log level.
    static func load(_ flags: [ConfigKey: DeviceConfiguration.Flag], file: String? = nil) throws(DeviceConfigurationError)
        -> DeviceConfiguration
    {
        if file == nil, let cached = cache.withLock({ $0 }), cached.flags == flags { return cached.device }
        let device = try DeviceConfiguration.load(flags: flags, file: file, isSource: isSource)
        Log.level = device.logLevel.value
        if file == nil { cache.withLock { $0 = (flags, device) } }
        return device
    }

    /// ``load(_:file:)`` for callers that cannot throw (``DataDirectoryOptions/path``): a bad
    /// configuration is printed as one line and ends the process with exit 78.
    static func loadOrExit(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> DeviceConfiguration {
        do {
            return try load(flags)
        } catch {
            let failure = CLIError.from(error)
            FileHandle.standardError.write(Data("capture: \(failure.message)\n".utf8))
            exit(failure.status.rawValue)
        }
    }
}

extension DeviceSettings {
    /// ``load(_:file:)`` for the commands that reach a recorder already running (status, pause,
    /// resume, modality, stop): the recorder runs on the settings it was started with, so a
    /// configuration file broken since then must not keep anyone from stopping it. The file's
    /// error becomes one warning, and the command goes on with flags, environment and defaults
    /// (a `data_dir` set only in that file is not seen then: the warning says so). A bad flag or
    /// environment value still ends the command (exit 78).
    static func loadForControl(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> DeviceConfiguration {
        do {
            return try load(flags)
        } catch let error where error.isInFile {
            Log.warning(
                "capture: warning: \(CLIError.from(error).message); going on without that file "
                    + "(its data_dir, if any, is not used)")
            return loadOrExit(flags, file: "/dev/null")
        } catch {
            return loadOrExit(flags)
        }
    }

    private static func loadOrExit(_ flags: [ConfigKey: DeviceConfiguration.Flag], file: String) -> DeviceConfiguration {
        do {
            return try load(flags, file: file)
        } catch {
            let failure = CLIError.from(error)
            FileHandle.standardError.write(Data("capture: \(failure.message)\n".utf8))
            exit(failure.status.rawValue)
        }
    }
}

/// Messages on stderr by level: warnings and errors by default, more with `-v`, `-vv` or
/// `--log-level` (or `log_level`, `$CAPTURE_LOG_LEVEL`). Plain lines, which journald keeps.
enum Log {
    private static let current = Mutex(LogLevel.warning)

    static var level: LogLevel {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    static func warning(_ message: String) { write(message, at: .warning) }
    static func info(_ message: String) { write(message, at: .info) }
    static func debug(_ message: String) { write(message, at: .debug) }

    private static func write(_ message: String, at level: LogLevel) {
        guard level <= Self.level else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// swift-log's messages (the uploader's, the OAuth session's, AsyncHTTPClient's) as ``Log``'s
/// plain lines, at the level ``Log`` is set to: quiet but for warnings unless `-v`.
struct CLILogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get {
            switch Log.level {
            case .error: .error
            case .warning: .warning
            case .info: .info
            case .debug: .debug
            }
        }
        set {}  // follows Log.level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let all = self.metadata.merging(metadata ?? [:]) { $1 }
        let details = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        FileHandle.standardError.write(Data("capture: \(message)\(details.isEmpty ? "" : " (\(details))")\n".utf8))
    }
}
