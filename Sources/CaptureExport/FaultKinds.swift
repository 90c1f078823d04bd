package import CaptureCore

extension ExportError: KindedError {
    package var faultKind: FaultKind {
        switch self {
        case .store(let error): error.faultKind
        case .transfer(let error): error.faultKind
        case .cannotCreateDirectory, .cannotWrite, .cannotRead: .io
        case .directoryExpected, .fileRequired: .badArgument
        }
    }
}
