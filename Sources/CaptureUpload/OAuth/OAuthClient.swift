import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The endpoints of an OAuth 2.0 issuer, from its OpenID Connect discovery document
/// (`<issuer>/.well-known/openid-configuration`; Keycloak's realms publish one).
public struct IssuerEndpoints: Sendable, Equatable, Decodable {
    /// The issuer as the document names it; must equal the configured one (RFC 8414 §3.3).
    public var issuer: String
    /// Where tokens are asked for (every grant).
    public var tokenEndpoint: String
    /// Where the device authorization grant starts (RFC 8628 §3.1); nil if the issuer lacks it.
    public var deviceAuthorizationEndpoint: String?
    /// Where a refresh token is revoked (RFC 7009); nil if the issuer offers none.
    public var revocationEndpoint: String?
}

/// What a token endpoint gives (RFC 6749 §5.1). Its descriptions never show a token.
public struct TokenGrant: Sendable, Equatable, CustomStringConvertible {
    /// The access token for the collector.
    public var accessToken: BearerToken
    /// Its lifetime in seconds as the issuer said (`expires_in`); nil if it did not say.
    public var expiresIn: Int64?
    /// A refresh token, if the issuer gave one.
    public var refreshToken: BearerToken?
    /// The refresh token's life in seconds (`refresh_expires_in`, Keycloak's): 0 for an offline
    /// token; nil if not stated.
    public var refreshExpiresIn: Int64?
    /// The scopes granted (`scope`, RFC 6749 §5.1), if stated.
    public var scope: String?

    /// Creates a grant.
    public init(
        accessToken: BearerToken, expiresIn: Int64?, refreshToken: BearerToken?, refreshExpiresIn: Int64? = nil,
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.refreshExpiresIn = refreshExpiresIn
        self.scope = scope
    }

    /// `access token (300 s)`; never the token.
    public var description: String { "access token (\(expiresIn.map { "\($0) s" } ?? "no expiry given"))" }
}

/// What the device authorization endpoint answers (RFC 8628 §3.2). `deviceCode` is a secret
/// and is never printed; the user code and URLs are for the person who logs in.
public struct DeviceAuthorization: Sendable, Equatable {
    /// The code the device polls with (secret).
    public var deviceCode: BearerToken
    /// The code the person enters.
    public var userCode: String
    /// Where the person goes.
    public var verificationURI: String
    /// The same with the user code in it, if the issuer gives one.
    public var verificationURIComplete: String?
    /// Seconds until the codes expire.
    public var expiresIn: Int64
    /// Seconds between polls (5 if the issuer does not say).
    public var interval: Int64

    /// Creates one (tests).
    public init(
        deviceCode: BearerToken, userCode: String, verificationURI: String, verificationURIComplete: String?,
        expiresIn: Int64, interval: Int64
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// Why an exchange with the issuer did not give what was asked.
public enum OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The issuer could not be reached or answered something that is not OAuth (a 5xx, HTML):
    /// worth trying again later.
    case unreachable(String)
    /// The issuer answered with an OAuth error (RFC 6749 §5.2): `invalid_grant`,
    /// `invalid_client`, `authorization_pending`… and its description, if any.
    case refused(code: String, description: String?)
    /// The configuration or the issuer's documents do not fit together (wrong issuer in the
    /// discovery document, no device endpoint).
    case misconfigured(String)
    /// There are no stored credentials: nobody has logged in for this data directory (no file
    /// at this path).
    case notLoggedIn(String)
    /// The login file at `path` is readable by group or others (`mode`, octal), so it is not used.
    case loginExposed(path: String, mode: String)
    /// The file at this path is not a login record.
    case notALogin(String)
    /// The login file holds a login to another issuer or client than the configuration names.
    case loginMismatch(path: String, issuer: String, client: String, configuredIssuer: String, configuredClient: String)
    /// The person approved, but the issuer gave no refresh token to keep (the client is not
    /// allowed refresh tokens).
    case noRefreshToken(clientID: String)
    /// The login file at this path cannot be deleted, for this reason.
    case cannotDelete(String, reason: String)

    /// One line.
    public var description: String {
        switch self {
        case .unreachable(let why): "the issuer is unreachable: \(why)"
        case .refused(let code, let text): "the issuer refused: \(code)" + (text.map { " (\($0))" } ?? "")
        case .misconfigured(let why): why
        case .notLoggedIn(let path): "not logged in (no \(path))"
        case .loginExposed(let path, let mode): "\(path) is readable by group or others (mode \(mode))"
        case .notALogin(let path): "\(path) is not a login record"
        case .loginMismatch(let path, let issuer, let client, let configuredIssuer, let configuredClient):
            "\(path) holds a login to \(issuer) as \(client), but the configuration names \(configuredIssuer) as \(configuredClient)"
        case .noRefreshToken(let client):
            "the issuer gave no refresh token, so nothing could be kept: enable refresh tokens for the client \(client)"
        case .cannotDelete(let path, let reason): "cannot delete \(path): \(reason)"
        }
    }

    /// The issuer refused the credentials themselves (a revoked or expired refresh token, a
    /// wrong client secret): only a new login helps.
    public var refusesCredentials: Bool {
        if case .refused(let code, _) = self { return code == "invalid_grant" || code == "invalid_client" || code == "unauthorized_client" }
        return false
    }
}

/// The requests an OAuth 2.0 client makes: discovery, the device authorization grant
/// (RFC 8628), the refresh-token and client-credentials grants (RFC 6749 §6, §4.4) and
/// revocation (RFC 7009). Form bodies over AsyncHTTPClient; redirects are not followed (a
/// secret must not travel to another place), and no secret is ever logged.
public struct OAuthClient: Sendable {
    /// The client's id at the issuer.
    public var clientID: String
    /// The client secret (confidential clients, client-credentials grant), sent with HTTP Basic
    /// authentication (RFC 6749 §2.3.1).
    public var clientSecret: BearerToken?
    /// Seconds before a request is given up.
    public var timeout: Int64 = 15

    /// Creates a client.
    public init(clientID: String, clientSecret: BearerToken? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// Reads `<issuer>/.well-known/openid-configuration` and checks that it names `issuer`.
    public func discover(issuer: String) async throws(OAuthError) -> IssuerEndpoints {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let (status, body) = try await send(url: base + "/.well-known/openid-configuration", form: nil)
        guard status == 200 else { throw .unreachable("discovery answered HTTP \(status)") }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // token_endpoint → tokenEndpoint
        guard let endpoints = try? decoder.decode(IssuerEndpoints.self, from: Data(body)) else {
            throw .unreachable("the discovery document is not JSON with issuer and token_endpoint")
        }
        guard endpoints.issuer == base || endpoints.issuer == issuer else {
            throw .misconfigured("the discovery document names issuer \(endpoints.issuer), not \(issuer)")
        }
        return endpoints
    }

    /// Starts the device authorization grant (RFC 8628 §3.1).
    public func authorizeDevice(_ endpoints: IssuerEndpoints, scope: String? = nil) async throws(OAuthError)
        -> DeviceAuthorization
    {
        guard let endpoint = endpoints.deviceAuthorizationEndpoint else {
            throw .misconfigured("the issuer \(endpoints.issuer) offers no device authorization grant")
        }
        var form = ["client_id": clientID]
        if let scope { form["scope"] = scope }
        let object = try await exchange(endpoint, form: form)
        guard let deviceCode = object["device_code"] as? String, let userCode = object["user_code"] as? String,
            let uri = (object["verification_uri"] ?? object["verification_url"]) as? String,
            let expires = Self.integer(object["expires_in"])
        else { throw .unreachable("the device authorization answer lacks device_code, user_code, verification_uri or expires_in") }
        return DeviceAuthorization(
            deviceCode: BearerToken(deviceCode), userCode: userCode, verificationURI: uri,
            verificationURIComplete: object["verification_uri_complete"] as? String, expiresIn: expires,
            interval: Self.integer(object["interval"]) ?? 5)
    }

    /// One poll of the token endpoint with the device code (RFC 8628 §3.4). Pending, slow
    /// down, denied and expired come back as ``OAuthError/refused(code:description:)``.
    public func pollDevice(_ endpoints: IssuerEndpoints, deviceCode: BearerToken) async throws(OAuthError) -> TokenGrant {
        try await token(
            endpoints,
            form: ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": deviceCode.secret])
    }

    /// A new access token for a refresh token (RFC 6749 §6).
    public func refresh(_ endpoints: IssuerEndpoints, refreshToken: BearerToken) async throws(OAuthError) -> TokenGrant {
        try await token(endpoints, form: ["grant_type": "refresh_token", "refresh_token": refreshToken.secret])
    }

    /// An access token for the client itself (RFC 6749 §4.4); needs ``clientSecret``.
    public func clientCredentials(_ endpoints: IssuerEndpoints) async throws(OAuthError) -> TokenGrant {
        guard clientSecret != nil else { throw .misconfigured("the client-credentials grant needs a client secret") }
        return try await token(endpoints, form: ["grant_type": "client_credentials"])
    }

    /// Revokes a refresh token (RFC 7009 §2.1). False if the issuer offers no revocation.
    public func revoke(_ endpoints: IssuerEndpoints, refreshToken: BearerToken) async throws(OAuthError) -> Bool {
        guard let endpoint = endpoints.revocationEndpoint else { return false }
        var form = ["token": refreshToken.secret, "token_type_hint": "refresh_token"]
        if clientSecret == nil { form["client_id"] = clientID }
        let (status, _) = try await send(url: endpoint, form: form)
        // RFC 7009 §2.2: 200 also for a token that was already invalid.
        guard status == 200 else { throw .unreachable("revocation answered HTTP \(status)") }
        return true
    }

    // MARK: - Requests

    private func token(_ endpoints: IssuerEndpoints, form: [String: String]) async throws(OAuthError) -> TokenGrant {
        var form = form
        if clientSecret == nil { form["client_id"] = clientID }
        let object = try await exchange(endpoints.tokenEndpoint, form: form)
        guard let access = object["access_token"] as? String, !access.isEmpty,
            (object["token_type"] as? String)?.lowercased() == "bearer"
        else { throw .unreachable("the token answer lacks a bearer access_token") }
        return TokenGrant(
            accessToken: BearerToken(access), expiresIn: Self.integer(object["expires_in"]),
            refreshToken: (object["refresh_token"] as? String).map(BearerToken.init),
            refreshExpiresIn: Self.integer(object["refresh_expires_in"]), scope: object["scope"] as? String)
    }

    /// POSTs `form` and returns the JSON object of a 200, or throws the OAuth error of a 400/401.
    private func exchange(_ url: String, form: [String: String]) async throws(OAuthError) -> [String: Any] {
        let (status, body) = try await send(url: url, form: form)
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        if status == 200, let object { return object }
        if (400...401).contains(status), let code = object?["error"] as? String {
            throw .refused(code: code, description: object?["error_description"] as? String)
        }
        throw .unreachable("\(URL(string: url)?.path ?? url) answered HTTP \(status)")
    }

    private func send(url: String, form: [String: String]?) async throws(OAuthError) -> (Int, [UInt8]) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(timeout)))
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { client.shutdown { _ in } }
        var request = HTTPClientRequest(url: url)
        request.headers.replaceOrAdd(name: "Accept", value: "application/json")
        if let form {
            request.method = .POST
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.formEncoded(form)))
            if let clientSecret {
                let pair = Self.formEscaped(clientID) + ":" + Self.formEscaped(clientSecret.secret)
                request.headers.replaceOrAdd(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
            }
        }
        do {
            let response = try await client.execute(request, timeout: .seconds(timeout))
            let body = try await response.body.collect(upTo: 256 * 1024)
            return (Int(response.status.code), Array(buffer: body))
        } catch {
            throw .unreachable("\(error)")
        }
    }

    /// `application/x-www-form-urlencoded`, keys sorted (stable bodies for tests).
    static func formEncoded(_ form: [String: String]) -> String {
        form.sorted { $0.key < $1.key }.map { formEscaped($0.key) + "=" + formEscaped($0.value) }.joined(separator: "&")
    }

    /// Percent-encodes all but the unreserved characters (RFC 3986 §2.3); space as `%20`.
    static func formEscaped(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func integer(_ value: Any?) -> Int64? {
        switch value {
        case let number as NSNumber: number.int64Value
        case let text as String: Int64(text)
        default: nil
        }
    }
}
