import CaptureUpload

extension OAuthError: CLIAdvised {
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

extension DevicePolling.Failure: CLIAdvised {
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
