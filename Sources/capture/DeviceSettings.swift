import CaptureConfig
import CaptureSensors
import Foundation
import Synchronization

/// The device's configuration as the command line sees it: loaded once per set of flags, with
/// the sources checked against the registered kinds, and the log level applied. A bad file or
/// value ends the command with exit 78 (EX_CONFIG) before it starts anything.
enum DeviceSettings {
    private static let cache = Mutex<(flags: [ConfigKey: DeviceConfiguration.Flag], device: DeviceConfiguration)?>(nil)

    /// Loads the configuration (or returns the one loaded with the same flags); `file` instead
    /// of the one found.
    static func load(_ flags: [ConfigKey: DeviceConfiguration.Flag], file: String? = nil) throws(DeviceConfigurationError)
        -> DeviceConfiguration
    {
        if file == nil, let cached = cache.withLock({ $0 }), cached.flags == flags { return cached.device }
        let device = try DeviceConfiguration.load(flags: flags, file: file, isSource: SourceRegistry.standard.isSource)
        Log.level = device.logLevel.value
        if file == nil { cache.withLock { $0 = (flags, device) } }
        return device
    }

    /// ``load(_:)`` for callers that cannot throw (``DataDirectoryOptions/path``): a bad
    /// configuration is printed as one line and ends the process with exit 78.
    static func loadOrExit(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> DeviceConfiguration {
        exitOnError { () throws(DeviceConfigurationError) in try load(flags) }
    }

    /// For the commands that reach a recorder already running
    /// (``DeviceConfiguration/loadTolerantOfFile(flags:isSource:)``): a broken file is one warning.
    static func loadForControl(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> DeviceConfiguration {
        let (device, ignored) = exitOnError { () throws(DeviceConfigurationError) in
            try DeviceConfiguration.loadTolerantOfFile(flags: flags, isSource: SourceRegistry.standard.isSource)
        }
        Log.level = device.logLevel.value
        if let ignored {
            Log.warning(
                "capture: warning: \(CLIError.from(ignored).message); going on without that file "
                    + "(its data_dir, if any, is not used)")
        }
        return device
    }

    private static func exitOnError<Value>(_ body: () throws(DeviceConfigurationError) -> Value) -> Value {
        do {
            return try body()
        } catch {
            let failure = CLIError.from(error)
            FileHandle.standardError.write(Data("capture: \(failure.message)\n".utf8))
            exit(failure.status.rawValue)
        }
    }
}
