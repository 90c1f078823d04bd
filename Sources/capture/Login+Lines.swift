import CaptureCore
import CaptureUpload

extension OAuthLogin.Outcome {
    /// The line `capture login` prints when it is done, with `settings`.
    func line(_ settings: OAuthSettings) -> String {
        switch self {
        case .clientCredentials(let grant):
            "the issuer \(settings.issuer) accepts the client secret in \(settings.clientSecretFile ?? "?"): access tokens "
                + "(valid \(grant.expiresIn.map { "\($0) s" } ?? "without a stated expiry")) come from the "
                + "client-credentials grant; nothing is kept"
        case .loggedIn:
            "logged in to \(settings.issuer) as \(settings.clientID); the refresh token is in \(settings.loginPath) (mode 600)"
        }
    }
}

extension OAuthLogin.Logout {
    /// The line `capture logout` prints, for the login file at `path`.
    func line(path: String) -> String {
        guard let login else { return "not logged in (no \(path))" }
        return "logged out of \(login.issuer): refresh token revoked: \(revoked); \(path) deleted"
    }
}

extension DeviceAuthorization {
    /// What `capture login` shows first: where to go, the code, how long it lasts.
    var lines: [String] {
        let expiry = expiresIn < 120 ? "\(expiresIn) s" : "\(expiresIn / 60) min"
        return ["To log in, open \(verificationURI) and enter the code \(userCode)"]
            + (verificationURIComplete.map { ["(or open \($0))"] } ?? [])
            + ["Waiting for the approval; the code expires in \(expiry)…"]
    }
}

extension StoredLogin {
    /// The warning `capture login` logs for a login that is no offline token, with when it ends
    /// and what to configure at the issuer; nil for an offline token (or a record that does not say).
    var notOfflineWarning: String? {
        guard let life = lifetime, !life.isOfflineToken else { return nil }
        return "the issuer granted no offline token (scope \"\(life.scope ?? "")\", refresh_expires_in "
            + "\(life.refreshExpiresIn.map { "\($0) s" } ?? "not stated")): this login ends \(TextFormat.time(life.expiresAt)) "
            + "unless refreshed, and with its SSO session at the latest; allow the client the offline_access scope at the "
            + "issuer (docs/upload.md, Keycloak) and log in again"
    }
}
