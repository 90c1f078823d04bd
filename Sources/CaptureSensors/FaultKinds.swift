package import CaptureCore

extension TraceFileError: KindedError {
    package var faultKind: FaultKind {
        switch self {
        case .cannotOpen: .notFound
        case .readFailed: .io
        case .malformed: .badData
        }
    }
}

extension DeviceError: KindedError {
    package var faultKind: FaultKind { isPermission ? .io : .unavailable }
}

extension SourceError: KindedError {
    package var faultKind: FaultKind {
        switch self {
        case .unknownKind, .malformed, .badAddress, .badRate, .notADeviceDirectory, .notUseful: .badArgument
        case .noDevice, .noReceiver, .nothingFound: .notFound
        case .unreadableDevice: .badData
        case .trace(let error): error.faultKind
        }
    }
}
