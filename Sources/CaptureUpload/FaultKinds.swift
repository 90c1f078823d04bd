public import CaptureCore

extension OAuthError: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .unreachable: .unavailable
        case .refused, .notLoggedIn, .noRefreshToken: .credentials
        case .cannotDelete: .io
        case .misconfigured, .loginExposed, .notALogin, .loginMismatch: .configuration
        }
    }
}

extension DevicePolling.Failure: KindedError {
    /// Unavailable while the issuer stayed unreachable; credentials for a login declined,
    /// expired or refused.
    public var faultKind: FaultKind {
        if case .unreachable = self { return .unavailable }
        return .credentials
    }
}

extension TokenFileError: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .malformed: .configuration
        case .missing: .notFound
        case .exposed: .credentials
        case .unreadable: .io
        }
    }
}

extension UploadRunFailure: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .tokenRejected: .credentials
        case .incomplete, .attachmentsIncomplete: .incomplete
        }
    }
}

extension HeartbeatError: KindedError {
    /// Credentials for a refused authentication or a secret's file that cannot be used;
    /// unavailable for a Pushgateway that does not answer or refuses otherwise.
    public var faultKind: FaultKind {
        switch self {
        case .unreachable: .unavailable
        case .refused(_, let status): status == 401 || status == 403 ? .credentials : .unavailable
        case .credentials(let error): error.faultKind
        }
    }
}
