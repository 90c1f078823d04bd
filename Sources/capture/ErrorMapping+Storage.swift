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
    var cliMessage: String {
        switch self {
        case .measurementNotFound: description + "; `capture list` shows the ones there are"
        case .alreadyOpen: description + "; stop it with `capture stop` first"
        case .diskFull: description + "; " + Self.diskFullHint
        default: description
        }
    }

    /// What to do about a full disk or store, wherever the fault was found.
    static let diskFullHint = "free some space, or delete measurements the collector already has"
}

extension TransferError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .notFinished: .alreadyOpen
        case .unrepresentable: .dataError
        case .io, .cannotRead: .ioError
        case .store(let error): error.exitStatus
        }
    }
    var cliMessage: String {
        switch self {
        case .notFinished: description + " (`capture stop` it first)"
        case .store(let error): error.cliMessage
        default: description
        }
    }
}

extension ImportError: CLIReportable {
    var exitStatus: ExitStatus { .dataError }
    var cliMessage: String {
        if case .alreadyImported = self { return description + "; " + ImportFileError.againHint }
        return description
    }
}

extension ImportFileError: CLIReportable {
    var exitStatus: ExitStatus {
        switch fault {
        case .missing: .notFound
        case .notRegularFile, .tooLarge, .notTransferFile, .invalidContent, .unrepresentable, .alreadyImported: .dataError
        case .unreadable: .ioError
        case .storage(let error): error.exitStatus
        }
    }
    var cliMessage: String {
        switch fault {
        case .notRegularFile: description + "; import a .ccyf file"
        case .alreadyImported(let id): description + " (`capture show \(id)`); " + Self.againHint
        case .unreadable: description + ": check its permissions"
        case .storage(let error): error.cliMessage
        default: description
        }
    }
}

extension ImportFileError {
    /// What to do about a ride that is already stored.
    static let againHint = "`capture import --again` stores it once more on purpose"
}

extension AttachmentError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .unsupportedExtension: .usage
        case .unreadable: .notFound
        case .invalidContent, .duplicateName: .dataError
        }
    }
    var cliMessage: String { description }
}
