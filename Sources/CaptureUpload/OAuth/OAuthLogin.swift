import CaptureStorage
import Foundation

/// Logging in to the collector's OAuth 2.0 issuer and out again (`capture login`, `capture
/// logout`): discovery, then the client-credentials check or the device authorization grant
/// with its polling and the refresh token kept in the login file; revocation and forgetting.
/// Nothing is printed: the front end gets the code to show through a callback and the outcome
/// as a value.
public enum OAuthLogin {
    /// How a login ended.
    public enum Outcome: Sendable, Equatable {
        /// With a client secret: the issuer accepts it and gave this grant; nothing is kept.
        case clientCredentials(TokenGrant)
        /// The person approved; this login is kept in the login file. Its
        /// ``StoredLogin/lifetime`` says whether it is an offline token
        /// (``CaptureStorage/LoginLifetime/isOfflineToken``) and how long it lasts.
        case loggedIn(StoredLogin)
    }

    /// Logs in as `settings` say. Without a client secret: asks for a device code, hands it to
    /// `codeReady` (to be shown to the person), polls with `polling` until the person decides,
    /// then keeps the refresh token in ``OAuthSettings/loginPath`` (mode 600), creating the
    /// data directory if need be.
    ///
    /// - Throws: ``OAuthError`` (discovery, the grants; ``OAuthError/noRefreshToken(clientID:)``),
    ///   ``DevicePolling/Failure`` (declined, expired), what `codeReady` throws and what writing
    ///   the login file throws.
    public static func logIn(
        _ settings: OAuthSettings, polling: DeviceLogin = DeviceLogin(), codeReady: (DeviceAuthorization) throws -> Void
    ) async throws -> Outcome {
        let client = try settings.client()
        let endpoints = try await client.discover(issuer: settings.issuer)
        if settings.clientSecretFile != nil { return .clientCredentials(try await client.clientCredentials(endpoints)) }
        let authorization = try await client.authorizeDevice(endpoints, scope: settings.scope)
        try codeReady(authorization)
        let grant = try await polling.poll(client, endpoints, authorization)
        guard let refresh = grant.refreshToken else { throw OAuthError.noRefreshToken(clientID: settings.clientID) }
        try PrivateFiles.createDirectory((settings.loginPath as NSString).deletingLastPathComponent)
        let now = Date()
        let lifetime = LoginLifetime(
            grantedAt: Int64(now.timeIntervalSince1970 * 1000), refreshExpiresIn: grant.refreshExpiresIn,
            scope: grant.scope ?? settings.scope)
        let login = StoredLogin(
            issuer: settings.issuer, clientID: settings.clientID, refreshToken: refresh, loggedIn: now, lifetime: lifetime)
        try login.write(to: settings.loginPath)
        return .loggedIn(login)
    }

    /// What a logout did.
    public struct Logout: Sendable {
        /// The login that was forgotten; nil if there was none.
        public var login: StoredLogin?
        /// `yes`, `not offered by the issuer`, or `failed` (then ``revocationError`` says why).
        public var revoked: String
        /// Why the refresh token could not be revoked; it may stay valid at the issuer until it expires.
        public var revocationError: (any Error)?

        public init(login: StoredLogin?, revoked: String, revocationError: (any Error)? = nil) {
            (self.login, self.revoked, self.revocationError) = (login, revoked, revocationError)
        }
    }

    /// Revokes the refresh token of the login at `path` (RFC 7009, if the issuer offers it) and
    /// deletes the file, also when the issuer cannot be reached. `settings` gives the client
    /// secret, if the configuration names the same client with one.
    ///
    /// - Throws: ``OAuthError/loginExposed(path:mode:)`` or ``OAuthError/notALogin(_:)`` for a
    ///   file that is no usable login (it is deleted nonetheless), ``OAuthError/cannotDelete(_:reason:)``.
    public static func logOut(_ path: String, settings: () throws -> OAuthSettings?) async throws -> Logout {
        let login: StoredLogin?
        do {
            login = try StoredLogin.read(path)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        guard let login else { return Logout(login: nil, revoked: "no") }
        var outcome = Logout(login: login, revoked: "no")
        do {
            let settings = try settings()
            let secret = settings?.clientID == login.clientID ? try settings?.client().clientSecret : nil
            let client = OAuthClient(clientID: login.clientID, clientSecret: secret)
            let offered = try await client.revoke(try await client.discover(issuer: login.issuer), refreshToken: BearerToken(login.refreshToken))
            outcome.revoked = offered ? "yes" : "not offered by the issuer"
        } catch {
            outcome.revoked = "failed"
            outcome.revocationError = error
        }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw OAuthError.cannotDelete(path, reason: error.localizedDescription)
        }
        return outcome
    }
}
