import CaptureUpload

extension OAuthError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .unreachable: .unavailable
        case .refused, .notLoggedIn: .tokenRejected
        case .misconfigured: .configuration
        }
    }

    var cliMessage: String {
        switch self {
        case .refused where refusesCredentials: description + ": run `capture login`"
        default: description
        }
    }
}
