import CaptureSensors

extension TraceFileError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .cannotOpen: .notFound
        case .readFailed: .ioError
        case .malformed: .dataError
        }
    }
    var cliMessage: String { description }
}

extension DeviceError: CLIReportable {
    var exitStatus: ExitStatus { isPermission ? .ioError : .unavailable }
    var cliMessage: String { description }
}

extension SourceError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .unknownKind, .malformed, .badAddress, .badRate, .notADeviceDirectory, .notUseful: .usage
        case .noDevice, .noReceiver, .nothingFound: .notFound
        case .unreadableDevice: .dataError
        case .trace(let error): error.exitStatus
        }
    }
    var cliMessage: String {
        switch self {
        case .unknownKind(_, let syntaxes):
            "\(description); use " + (syntaxes.count > 1 ? syntaxes.dropLast().joined(separator: ", ") + " or " : "")
                + (syntaxes.last ?? "--source KIND:ARGUMENT")
        case .malformed(let spec, let syntax): "bad source '\(spec)'; use \(syntax)"
        case .badAddress: "\(description); use gpsd:HOST:PORT"
        case .badRate: "\(description); use iio:iio:deviceN@HZ"
        case .nothingFound: "\(description); use --source"
        case .trace(let error): error.cliMessage
        case .notADeviceDirectory, .noDevice, .notUseful, .unreadableDevice, .noReceiver: description
        }
    }
}
