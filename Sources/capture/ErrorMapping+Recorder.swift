import CaptureCore
import CaptureRecorder
import CaptureStorage

extension ControlFailure: CLIAdvised {
    var cliMessage: String {
        switch kind {
        case .notOpen, .notCapturing, .notPaused: message + (LifecycleError.hint(faultKind).map { "; " + $0 } ?? "")
        case .diskFull: message + "; " + StoreError.diskFullHint
        default: message
        }
    }
}

extension LaunchFailure: CLIAdvised {
    var cliMessage: String { kind == .diskFull ? message + "; " + StoreError.diskFullHint : message }
}

extension RecorderControlError: CLIAdvised {
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
