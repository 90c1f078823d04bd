package import CaptureConfig
import CaptureSensors
import Synchronization

/// The configuration as one process uses it: the sources checked against the registered kinds,
/// the log level applied, and loaded once per set of flags (a command asks several times).
extension DeviceConfiguration {
    private static let loaded = Mutex<(flags: [ConfigKey: Flag], device: DeviceConfiguration)?>(nil)

    /// Loads the configuration with `flags` (or returns the one loaded with the same flags);
    /// `file` instead of the one found, not kept.
    package static func forProcess(_ flags: [ConfigKey: Flag], file: String? = nil) throws(DeviceConfigurationError)
        -> DeviceConfiguration
    {
        if file == nil, let cached = loaded.withLock({ $0 }), cached.flags == flags { return cached.device }
        let device = try load(flags: flags, file: file, isSource: SourceRegistry.standard.isSource)
        try device.checkStages()
        Log.level = device.logLevel.value
        if file == nil { loaded.withLock { $0 = (flags, device) } }
        return device
    }

    /// For the commands that reach a recorder already running: a broken file is left out and
    /// returned (``loadTolerantOfFile(flags:isSource:)``); the log level applied.
    package static func forControl(_ flags: [ConfigKey: Flag]) throws(DeviceConfigurationError)
        -> (device: DeviceConfiguration, ignored: DeviceConfigurationError?)
    {
        let loaded = try loadTolerantOfFile(flags: flags, isSource: SourceRegistry.standard.isSource)
        try loaded.device.checkStages()
        Log.level = loaded.device.logLevel.value
        return loaded
    }
}
