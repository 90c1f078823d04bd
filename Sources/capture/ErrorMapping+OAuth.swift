import CaptureUpload

extension OAuthError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .unreachable: .unavailable
        case .refused, .notLoggedIn, .noRefreshToken: .tokenRejected
        case .cannotDelete: .ioError
        case .misconfigured, .loginExposed, .notALogin, .loginMismatch: .configuration
        }
    }

    var cliMessage: String {
        switch self {
        case .refused where refusesCredentials: description + ": run `capture login`"
        case .notLoggedIn, .loginMismatch: description + ": run `capture login`"
        case .loginExposed: description + ": run `capture logout` and `capture login` again"
        case .notALogin: description + ": run `capture logout` and `capture login` again"
        default: description
        }
    }
}

extension DevicePolling.Failure: CLIReportable {
    /// 69 while the issuer stayed unreachable; 77 for a login declined, expired or refused.
    var exitStatus: ExitStatus {
        if case .unreachable = self { return .unavailable }
        return .tokenRejected
    }
    var cliMessage: String {
        switch self {
        case .expired: description + ": run `capture login` again"
        default: description
        }
    }
}

extension CredentialsRemedy {
    /// What to do, with the command that does it.
    var advice: String {
        switch self {
        case .renewToken(let file): "renew the token in \(file) and run again"
        case .logIn: "run `capture login` and then `capture upload --resume`"
        }
    }
}
