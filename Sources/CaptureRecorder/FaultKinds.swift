package import CaptureCore

extension ControlFailure: KindedError {
    package var faultKind: FaultKind {
        switch kind {
        case .notOpen: .notOpen
        case .notCapturing: .notCapturing
        case .notPaused: .notPaused
        case .alreadyStarted: .alreadyOpen
        case .badRequest: .badArgument
        case .diskFull: .diskFull
        case .storage: .io
        }
    }
}

extension LaunchFailure: KindedError {
    package var faultKind: FaultKind {
        switch kind {
        case .recorderRunning, .measurementOpen: .alreadyOpen
        case .notOpen: .notOpen
        case .badSource: .badArgument
        case .notFound: .notFound
        case .malformedInput: .badData
        case .deviceUnavailable, .notStarted: .unavailable
        case .diskFull: .diskFull
        case .io: .io
        case .unexpected: .unexpected
        }
    }
}

extension RecorderControlError: KindedError {
    package var faultKind: FaultKind {
        switch self {
        case .measurementOpen: .alreadyOpen
        case .recorderGone: .notCapturing
        case .noAnswer, .recorderStarting: .unavailable
        }
    }
}

extension RecorderFailure: KindedError {
    package var faultKind: FaultKind {
        switch self {
        case .nothingRecorded: .unavailable
        }
    }
}

extension RuntimeDirectoryError: KindedError {
    package var faultKind: FaultKind { .io }
}
