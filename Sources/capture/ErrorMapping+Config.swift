import CaptureConfig

extension DeviceConfigurationError: CLIReportable {
    /// 78 (EX_CONFIG) for the file and the environment; 64 for a bad option, like every other.
    var exitStatus: ExitStatus { place.hasPrefix("-") ? .usage : .configuration }
    var cliMessage: String { description }
}
