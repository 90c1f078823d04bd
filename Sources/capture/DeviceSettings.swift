import CaptureConfig
import CaptureWiring
import Foundation
import Logging

/// The device's configuration for the commands that cannot throw (``DataDirectoryOptions/path``):
/// a bad file or value is one line and exit 78 (EX_CONFIG) before anything starts.
enum DeviceSettings {
    static func loadOrExit(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> DeviceConfiguration {
        exitOnError { () throws(DeviceConfigurationError) in try DeviceConfiguration.forProcess(flags) }
    }

    /// For the commands that reach a recorder already running: a broken file is one warning.
    static func loadForControl(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> DeviceConfiguration {
        let (device, ignored) = exitOnError { () throws(DeviceConfigurationError) in try DeviceConfiguration.forControl(flags) }
        if let ignored {
            Log.logger.warning(
                "\(CLIError.from(ignored).message); going on without that file (its data_dir, if any, is not used)")
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
