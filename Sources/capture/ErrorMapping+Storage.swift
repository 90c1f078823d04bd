import CaptureStorage

extension StoreError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .measurementNotFound: .notFound
        case .alreadyOpen: .alreadyOpen
        case .diskFull: .diskFull
        default: .ioError
        }
    }
    var cliMessage: String { description }
}

extension TransferError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .notFinished: .alreadyOpen
        case .unrepresentable: .dataError
        case .io, .cannotRead: .ioError
        }
    }
    var cliMessage: String { description }
}

extension ImportError: CLIReportable {
    var exitStatus: ExitStatus { .dataError }
    var cliMessage: String { description }
}
