import CaptureExport

extension ExportError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .store(let error): error.exitStatus
        case .transfer(let error): error.exitStatus
        case .cannotCreateDirectory, .cannotWrite, .cannotRead: .ioError
        }
    }
    var cliMessage: String {
        switch self {
        case .store(let error): error.cliMessage
        case .transfer(let error): error.cliMessage
        case .cannotCreateDirectory, .cannotWrite, .cannotRead: description
        }
    }
}
