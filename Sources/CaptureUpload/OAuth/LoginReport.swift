/// What `capture login` and `capture logout` report: one JSON object a step (`--json`, keys as
/// docs/upload.md lists them); the front end words the outcome for a person. Nothing secret is in it.
public struct LoginReport: Encodable, Sendable, Equatable {
    public var loggedIn: Bool?
    public var loggedOut: Bool?
    public var issuer: String?
    /// `client_credentials` for a login with a client secret.
    public var grant: String?
    public var loginFile: String?
    public var offlineToken: Bool?
    /// When the login ends unless refreshed (Unix ms).
    public var expiresAt: Int64?
    /// For a logout: ``OAuthLogin/Logout/revoked``.
    public var revoked: String?
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case loggedIn = "logged_in", loggedOut = "logged_out", issuer, grant, loginFile = "login_file"
        case offlineToken = "offline_token", expiresAt = "expires_at", revoked, reason
    }

    /// How a login ended, with `settings`.
    public init(_ outcome: OAuthLogin.Outcome, settings: OAuthSettings) {
        (loggedIn, issuer) = (true, settings.issuer)
        switch outcome {
        case .clientCredentials:
            grant = "client_credentials"
        case .loggedIn(let login):
            (loginFile, offlineToken, expiresAt) = (settings.loginPath, login.lifetime?.isOfflineToken, login.lifetime?.expiresAt)
        }
    }

    /// What a logout did.
    public init(_ logout: OAuthLogin.Logout) {
        guard let login = logout.login else {
            (loggedOut, reason) = (false, "not logged in")
            return
        }
        (loggedOut, issuer, revoked) = (true, login.issuer, logout.revoked)
    }
}

extension DeviceAuthorization {
    /// The code and where to enter it, as `capture login --json` prints it first (no device code).
    public struct Shown: Encodable, Sendable, Equatable {
        public var verificationURI: String
        public var verificationURIComplete: String?
        public var userCode: String
        public var expiresIn: Int64

        enum CodingKeys: String, CodingKey {
            case verificationURI = "verification_uri", verificationURIComplete = "verification_uri_complete"
            case userCode = "user_code", expiresIn = "expires_in"
        }
    }

    /// What to show the person.
    public var shown: Shown {
        Shown(verificationURI: verificationURI, verificationURIComplete: verificationURIComplete, userCode: userCode, expiresIn: expiresIn)
    }
}
