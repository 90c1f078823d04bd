import CaptureStorage

extension StoreError: CLIAdvised {
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

extension TransferError: CLIAdvised {
    var cliMessage: String {
        switch self {
        case .notFinished: description + " (`capture stop` it first)"
        case .store(let error): error.cliMessage
        default: description
        }
    }
}

extension ImportError: CLIAdvised {
    var cliMessage: String {
        if case .alreadyImported = self { return description + "; " + ImportFileError.againHint }
        return description
    }
}

extension ImportFileError: CLIAdvised {
    var cliMessage: String {
        switch fault {
        case .notRegularFile: description + "; import a .ccyf file"
        case .notTransferFile where looksLike != nil: description + "; `capture replay \(path)` reads it"
        case .alreadyImported(let id): description + " (`capture show \(id)`); " + Self.againHint
        case .unreadable: description + ": check its permissions"
        case .storage(let error): error.cliMessage
        default: description
        }
    }

    /// What to do about a ride that is already stored.
    static let againHint = "`capture import --again` stores it once more on purpose"
}
