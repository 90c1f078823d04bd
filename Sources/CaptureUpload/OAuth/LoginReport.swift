/// What `capture login` and `capture logout` report: one JSON object a step (`--json`, keys as
/// docs/upload.md lists them) and a line for a person. Nothing secret is in either.
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
    /// The line for a person (not in the JSON).
    public var line = ""

    enum CodingKeys: String, CodingKey {
        case loggedIn = "logged_in", loggedOut = "logged_out", issuer, grant, loginFile = "login_file"
        case offlineToken = "offline_token", expiresAt = "expires_at", revoked, reason
    }

    /// How a login ended, with `settings`.
    public init(_ outcome: OAuthLogin.Outcome, settings: OAuthSettings) {
        (loggedIn, issuer) = (true, settings.issuer)
        switch outcome {
        case .clientCredentials(let grant):
            self.grant = "client_credentials"
            line =
                "the issuer \(settings.issuer) accepts the client secret in \(settings.clientSecretFile ?? "?"): access tokens "
                + "(valid \(grant.expiresIn.map { "\($0) s" } ?? "without a stated expiry")) come from the "
                + "client-credentials grant; nothing is kept"
        case .loggedIn(let login):
            (loginFile, offlineToken, expiresAt) = (settings.loginPath, login.lifetime?.isOfflineToken, login.lifetime?.expiresAt)
            line = "logged in to \(settings.issuer) as \(settings.clientID); the refresh token is in \(settings.loginPath) (mode 600)"
        }
    }

    /// What a logout of the login file at `path` did.
    public init(_ logout: OAuthLogin.Logout, path: String) {
        guard let login = logout.login else {
            (loggedOut, reason, line) = (false, "not logged in", "not logged in (no \(path))")
            return
        }
        (loggedOut, issuer, revoked) = (true, login.issuer, logout.revoked)
        line = "logged out of \(login.issuer): refresh token revoked: \(logout.revoked); \(path) deleted"
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

    /// The same for a person: where to go, the code, how long it lasts.
    public var lines: [String] {
        let expiry = expiresIn < 120 ? "\(expiresIn) s" : "\(expiresIn / 60) min"
        return ["To log in, open \(verificationURI) and enter the code \(userCode)"]
            + (verificationURIComplete.map { ["(or open \($0))"] } ?? [])
            + ["Waiting for the approval; the code expires in \(expiry)…"]
    }
}
