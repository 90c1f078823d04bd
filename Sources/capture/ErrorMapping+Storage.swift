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

extension ImportFileError: CLIReportable {
    var exitStatus: ExitStatus {
        switch fault {
        case .missing: .notFound
        case .notRegularFile, .tooLarge, .notTransferFile, .invalidContent, .unrepresentable: .dataError
        case .unreadable: .ioError
        case .storage(let error): error.exitStatus
        }
    }
    var cliMessage: String {
        switch fault {
        case .notRegularFile: description + "; import a .ccyf file"
        case .unreadable: description + ": check its permissions"
        case .storage(let error): error.cliMessage
        default: description
        }
    }
}
