public import CaptureCore

extension StoreError: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .measurementNotFound: .notFound
        case .alreadyOpen: .alreadyOpen
        case .diskFull: .diskFull
        default: .io
        }
    }
}

extension TransferError: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .notFinished: .alreadyOpen
        case .unrepresentable: .badData
        case .io, .cannotRead: .io
        case .store(let error): error.faultKind
        }
    }
}

extension ImportError: KindedError {
    public var faultKind: FaultKind { .badData }
}

extension ImportFileError: KindedError {
    public var faultKind: FaultKind {
        switch fault {
        case .missing: .notFound
        case .notRegularFile, .tooLarge, .notTransferFile, .invalidContent, .unrepresentable, .alreadyImported: .badData
        case .unreadable: .io
        case .storage(let error): error.faultKind
        }
    }
}

extension AttachmentError: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .unsupportedExtension: .badArgument
        case .unreadable: .notFound
        case .invalidContent, .duplicateName: .badData
        }
    }
}
