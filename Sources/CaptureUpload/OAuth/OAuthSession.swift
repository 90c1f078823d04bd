import CaptureCore
import CaptureStorage
import Foundation
public import Logging

/// Where `capture` gets OAuth 2.0 tokens: the issuer and client of the configuration
/// (`auth.issuer`, `auth.client_id`, `auth.client_secret_file`, `auth.scope`) and the login file.
public struct OAuthSettings: Sendable, Equatable {
    /// The issuer URL, such as `https://sso.example.com/realms/cyface`.
    public var issuer: String
    /// The client id.
    public var clientID: String
    /// A file holding the client secret (mode 600): with one, tokens come from the
    /// client-credentials grant and no login is needed.
    public var clientSecretFile: String?
    /// Where `capture login` keeps the refresh token (`<data dir>/login.json`).
    public var loginPath: String
    /// The scopes the device login asks for, separated by spaces; nil asks for none.
    public var scope: String?

    /// The scopes asked for by default: `offline_access` makes Keycloak grant an offline token,
    /// which outlives the SSO session (docs/upload.md, Keycloak).
    public static let defaultScope = "openid offline_access"

    /// Creates settings.
    public init(
        issuer: String, clientID: String, clientSecretFile: String?, dataDirectory: String, scope: String? = defaultScope
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecretFile = clientSecretFile
        self.scope = scope
        loginPath = dataDirectory + "/" + StoredLogin.fileName
    }

    /// The client for these settings, with the secret read if there is a secret file.
    public func client() throws(OAuthError) -> OAuthClient {
        guard let clientSecretFile else { return OAuthClient(clientID: clientID) }
        do {
            return OAuthClient(clientID: clientID, clientSecret: try TokenFile.read(clientSecretFile))
        } catch {
            throw .misconfigured("the client secret file: \(error)")
        }
    }
}

/// An ``UploadAuthenticator`` with short-lived OAuth 2.0 access tokens: it renews the token
/// before it expires (when less than a third of its life or 30 seconds remain, whichever is
/// less) and after a 401, with the stored refresh token or the client-credentials grant. After
/// every refresh the login record (a rotated refresh token, the new ``LoginLifetime``) replaces
/// the stored one durably before the access token is used; a refresh the issuer refuses marks
/// the login gone in it. Nothing it holds is ever logged.
public actor OAuthSession: UploadAuthenticator {
    public nonisolated let origin: String
    public nonisolated var remedy: CredentialsRemedy { .logIn }
    private let settings: OAuthSettings
    private let logger: Logger
    private var endpoints: IssuerEndpoints?
    private var access: BearerToken?
    private var renewAt: ContinuousClock.Instant?
    private let clock: @Sendable () -> Int64
    /// How many access tokens were obtained (first one included).
    public private(set) var renewals = 0

    /// A session for `settings`; nothing is asked of the issuer until a token is needed.
    /// `clock` is the wall clock in Unix ms (what the login's lifetime is counted in).
    public init(
        _ settings: OAuthSettings, logger: Logger = Logger(label: "capture.oauth"),
        clock: @escaping @Sendable () -> Int64 = { Delivery.nowMs() }
    ) {
        self.settings = settings
        self.logger = logger
        self.clock = clock
        origin = settings.clientSecretFile.map { "the client secret in \($0)" } ?? "the login to \(settings.issuer)"
    }

    public func bearerToken() async throws -> BearerToken {
        if let access, let renewAt, ContinuousClock.now < renewAt { return access }
        if let access, renewAt == nil { return access }
        return try await renew()
    }

    public nonisolated var renewable: Bool { true }

    public func tokenRejected() async {
        access = nil
        renewAt = nil
    }

    /// Gets a new access token now.
    ///
    /// - Throws: ``OAuthError``: ``OAuthError/notLoggedIn(_:)`` without a login,
    ///   ``OAuthError/refused(code:description:)`` when the issuer refuses the refresh token or
    ///   the secret, ``OAuthError/unreachable(_:)`` when it cannot be asked.
    @discardableResult
    public func renew() async throws(OAuthError) -> BearerToken {
        let client = try settings.client()
        let endpoints: IssuerEndpoints
        if let known = self.endpoints {
            endpoints = known
        } else {
            endpoints = try await client.discover(issuer: settings.issuer)
            self.endpoints = endpoints
        }
        let grant: TokenGrant
        if settings.clientSecretFile != nil {
            grant = try await client.clientCredentials(endpoints)
        } else {
            grant = try await refreshLogin(client, endpoints)
        }
        access = grant.accessToken
        renewAt = grant.expiresIn.map { stated in
            // What the issuer says, within 0 s and a day: a larger number must not overflow here.
            let lifetime = min(max(0, stated), 86_400) * 1000
            return ContinuousClock.now.advanced(by: .milliseconds(lifetime - min(30_000, lifetime / 3)))
        }
        renewals += 1
        logger.info("access token renewed", metadata: ["expires_in": "\(grant.expiresIn.map { "\($0) s" } ?? "not stated")"])
        return grant.accessToken
    }

    /// Refreshes the device login: refused at once if its record says the issuer ended it;
    /// otherwise the refresh grant, then the record with the new refresh token and lifetime
    /// written durably (``StoredLogin/write(to:)``) before the grant is used, so that a power cut
    /// at any moment leaves a refresh token that works. A refusal is written into the record.
    private func refreshLogin(_ client: OAuthClient, _ endpoints: IssuerEndpoints) async throws(OAuthError) -> TokenGrant {
        guard let login = try StoredLogin.read(settings.loginPath) else { throw .notLoggedIn(settings.loginPath) }
        guard login.issuer == settings.issuer, login.clientID == settings.clientID else {
            throw .loginMismatch(
                path: settings.loginPath, issuer: login.issuer, client: login.clientID, configuredIssuer: settings.issuer,
                configuredClient: settings.clientID)
        }
        if let lifetime = login.lifetime, let goneAt = lifetime.goneAt {
            // The issuer said invalid_grant before: asking again would only say it again.
            throw .refused(code: "invalid_grant", description: "the login ended \(TextFormat.time(goneAt)): \(lifetime.goneReason ?? "refused")")
        }
        let grant: TokenGrant
        do {
            grant = try await client.refresh(endpoints, refreshToken: BearerToken(login.refreshToken))
        } catch {
            if error.refusesCredentials {
                var ended = login
                let now = clock()
                ended.lifetime = (login.lifetime ?? LoginLifetime(grantedAt: now, refreshExpiresIn: nil, scope: nil))
                    .gone(at: now, reason: "\(error)")
                do {
                    try ended.write(to: settings.loginPath)
                } catch {
                    logger.warning("cannot record that the login is gone", metadata: ["error": "\(error)"])
                }
            }
            throw error
        }
        var renewed = login
        if let rotated = grant.refreshToken { renewed.refreshToken = rotated.secret }
        renewed.lifetime = LoginLifetime(
            grantedAt: clock(), refreshExpiresIn: grant.refreshExpiresIn, scope: grant.scope ?? login.lifetime?.scope)
        do {
            try renewed.write(to: settings.loginPath)
        } catch {
            // The old refresh token stays in the record; Keycloak keeps it valid unless the realm
            // revokes used refresh tokens, and the next renewal tries to save again.
            logger.warning("cannot save the renewed login", metadata: ["error": "\(error)"])
        }
        return grant
    }
}
