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
