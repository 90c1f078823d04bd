import CaptureCore
import CaptureRecorder
import CaptureStorage

extension ControlFailure: CLIReportable {
    var exitStatus: ExitStatus {
        switch kind {
        case .notOpen: .notOpen
        case .notCapturing: .notCapturing
        case .notPaused: .notPaused
        case .alreadyStarted: .alreadyOpen
        case .badRequest: .usage
        case .diskFull: .diskFull
        case .storage: .ioError
        }
    }
    var cliMessage: String {
        switch kind {
        case .notOpen, .notCapturing, .notPaused: message + (LifecycleError.hint(exitStatus).map { "; " + $0 } ?? "")
        case .diskFull: message + "; " + StoreError.diskFullHint
        default: message
        }
    }
}

extension LaunchFailure: CLIReportable {
    var exitStatus: ExitStatus {
        switch kind {
        case .recorderRunning, .measurementOpen: .alreadyOpen
        case .notOpen: .notOpen
        case .badSource: .usage
        case .notFound: .notFound
        case .malformedInput: .dataError
        case .deviceUnavailable, .notStarted: .unavailable
        case .diskFull: .diskFull
        case .io: .ioError
        case .unexpected: .failure
        }
    }
    var cliMessage: String { kind == .diskFull ? message + "; " + StoreError.diskFullHint : message }
}

extension RecorderControlError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .measurementOpen: .alreadyOpen
        case .recorderGone: .notCapturing
        case .noAnswer, .recorderStarting: .unavailable
        }
    }
    var cliMessage: String {
        switch self {
        case .measurementOpen(_, _, recorderRunning: true): "\(description); stop it with `capture stop` first"
        case .measurementOpen(_, _, recorderRunning: false): "\(description); `capture resume` continues it, `capture stop` finishes it"
        case .recorderGone:
            "\(description); `capture resume` continues it on a new track, `capture stop` finishes it"
        case .recorderStarting: "\(description); try again"
        case .noAnswer: description
        }
    }
}
