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
    var cliMessage: String { description }
}

extension CyfaceError: CLIReportable {
    var exitStatus: ExitStatus { .dataError }
    var cliMessage: String { description }
}
