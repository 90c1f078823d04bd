import CaptureCore

extension LifecycleError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .alreadyStarted: .alreadyOpen
        case .notOpen: .notOpen
        case .notCapturing: .notCapturing
        case .notPaused: .notPaused
        }
    }
    var cliMessage: String { description + (Self.hint(exitStatus).map { "; " + $0 } ?? "") }

    /// What to do after a refused lifecycle command, also when the recorder refused it.
    static func hint(_ status: ExitStatus) -> String? {
        switch status {
        case .notOpen: "start one with `capture start`"
        case .notCapturing: "`capture resume` continues it"
        case .notPaused: "`capture pause` pauses it"
        default: nil
        }
    }
}

extension CyfaceError: CLIReportable {
    var exitStatus: ExitStatus { .dataError }
    var cliMessage: String { description }
}
