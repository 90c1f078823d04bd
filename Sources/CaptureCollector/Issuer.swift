import Crypto
import CryptoExtras
public import Foundation
import HTTPTypes
public import Hummingbird
import HummingbirdAuth
public import JWTKit
import NIOCore
import Synchronization

/// A small OAuth 2.0 issuer for tests and the demo, laid out as a Keycloak realm
/// (`/realms/capture/…`): the OpenID discovery document, the device authorization grant
/// (RFC 8628), the refresh-token and client-credentials grants, revocation (RFC 7009) and the
/// JWKS of its RSA key. Access tokens are RS256 JWTs with `iss`, `aud`, `sub`, `exp`.
///
/// Where a real issuer shows a login page, `GET /realms/capture/device?user_code=…` approves
/// the code at once (`&decision=deny` declines it): tests and the demo play the person with curl.
/// Everything lives in memory; a restart forgets every login.
///
/// Logins follow Keycloak's session rules (see ``Configuration``): a login without the
/// `offline_access` scope belongs to an SSO session that ends after ``Configuration/ssoSessionIdle``
/// without a refresh or ``Configuration/ssoSessionMax`` after the login; with it, an offline
/// session that ends after ``Configuration/offlineSessionIdle`` without a refresh and is answered
/// with `refresh_expires_in: 0`. Every refresh answers a new refresh token (rotation); with
/// ``Configuration/revokeRefreshToken`` the one used stops working. Session times are read from
/// the wall clock (``Configuration/now``), so `faketime` moves them.
public final class Issuer: Sendable {
    /// The realm's path below the server's root.
    public static let realm = "realms/capture"

    let configuration: Configuration
    private let signing: JWTKeyCollection
    /// What the collector checks tokens against: the public key, this issuer, the audience.
    public let requirements: JWTRequirements
    private let jwks: String
    private let url = URLSlot()
    private let state = Mutex(State())

    private struct Device {
        var userCode: String
        var scope: String?
        var issued: ContinuousClock.Instant
        var decision: Bool?
        var lastPoll: ContinuousClock.Instant?
        var polls = 0
    }

    /// A login's session, as Keycloak keeps one per login (SSO) or per offline token.
    private struct Session {
        var created: Date
        var lastRefresh: Date
        var offline: Bool
        var scope: String
    }

    private struct State {
        var devices: [String: Device] = [:]
        /// Refresh token → the id of its session.
        var refreshTokens: [String: String] = [:]
        var sessions: [String: Session] = [:]
        var issuedTokens = 0
    }

    /// Where the issuer URL is kept once known.
    private final class URLSlot: Sendable {
        let value = Mutex<String?>(nil)
    }

    /// Makes a new 2048-bit RSA key; nothing is served until ``addRoutes(to:)``.
    public init(_ configuration: Configuration) async throws {
        self.configuration = configuration
        let key = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let kid = JWKIdentifier(string: "capture-issuer")
        signing = JWTKeyCollection()
        let verifying = JWTKeyCollection()
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let jwk = JWK.rsa(
            .rs256, identifier: kid, modulus: Self.base64URL(modulus), exponent: Self.base64URL(exponent))
        jwks = String(decoding: try JSONEncoder().encode(JWKS(keys: [jwk])), as: UTF8.self)
        let url = self.url
        requirements = JWTRequirements(keys: verifying, audience: configuration.audience) { url.value.withLock { $0 } }
        await signing.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        await verifying.add(rsa: key.publicKey, digestAlgorithm: .sha256, kid: kid)
    }

    /// The issuer URL, once the server is bound: `http://HOST:PORT/realms/capture`.
    public var issuerURL: String? { url.value.withLock { $0 } }

    /// How many access tokens it has issued.
    public var issuedTokens: Int { state.withLock { $0.issuedTokens } }

    /// Sets the issuer URL from the bound address.
    func bind(host: String, port: Int) {
        url.value.withLock { $0 = "http://\(host):\(port)/\(Self.realm)" }
    }

    /// Adds the realm's routes.
    func addRoutes(to router: Router<BasicRequestContext>) {
        let realm = router.group(RouterPath(Self.realm))
        realm.get(".well-known/openid-configuration") { _, _ in self.discovery() }
        realm.get("protocol/openid-connect/certs") { _, _ in Self.json(self.jwks, status: .ok) }
        realm.post("protocol/openid-connect/auth/device") { request, _ in
            try await self.authorizeDevice(Self.form(request), request: request)
        }
        realm.post("protocol/openid-connect/token") { request, _ in
            try await self.token(Self.form(request), request: request)
        }
        realm.post("protocol/openid-connect/revoke") { request, _ in
            let form = try await Self.form(request)
            // As Keycloak: revoking a refresh token ends its session (an offline token's too).
            if let token = form["token"] {
                self.state.withLock { state in
                    guard let session = state.refreshTokens.removeValue(forKey: token) else { return }
                    state.sessions[session] = nil
                    state.refreshTokens = state.refreshTokens.filter { $0.value != session }
                }
            }
            return Response(status: .ok)
        }
        realm.get("device") { request, _ in self.decide(request) }
    }

    // MARK: - Endpoints

    private func discovery() -> Response {
        let base = issuerURL ?? ""
        let document: [String: Any] = [
            "issuer": base,
            "token_endpoint": base + "/protocol/openid-connect/token",
            "device_authorization_endpoint": base + "/protocol/openid-connect/auth/device",
            "revocation_endpoint": base + "/protocol/openid-connect/revoke",
            "jwks_uri": base + "/protocol/openid-connect/certs",
            "grant_types_supported": [
                "urn:ietf:params:oauth:grant-type:device_code", "refresh_token",
            ] + (configuration.clientSecret == nil ? [] : ["client_credentials"]),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
        ]
        return Self.json(document, status: .ok)
    }

    private func authorizeDevice(_ form: [String: String], request: Request) async throws -> Response {
        guard clientAuthenticated(form, request: request) else { return Self.error("invalid_client", status: .unauthorized) }
        let deviceCode = Self.randomToken()
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        let raw = String((0..<8).map { _ in letters.randomElement()! })
        let userCode = raw.prefix(4) + "-" + raw.suffix(4)
        let device = Device(userCode: String(userCode), scope: form["scope"], issued: .now)
        state.withLock { $0.devices[deviceCode] = device }
        let base = issuerURL ?? ""
        return Self.json(
            [
                "device_code": deviceCode, "user_code": String(userCode),
                "verification_uri": base + "/device",
                "verification_uri_complete": base + "/device?user_code=" + userCode,
                "expires_in": configuration.deviceCodeLifetime, "interval": configuration.interval,
            ], status: .ok)
    }

    private func token(_ form: [String: String], request: Request) async throws -> Response {
        guard clientAuthenticated(form, request: request) else { return Self.error("invalid_client", status: .unauthorized) }
        switch form["grant_type"] {
        case "urn:ietf:params:oauth:grant-type:device_code":
            guard let code = form["device_code"] else { return Self.error("invalid_request") }
            return try await pollDevice(code)
        case "refresh_token":
            guard let refresh = form["refresh_token"] else { return Self.error("invalid_request") }
            switch refreshSession(refresh) {
            case .success(let session): return try await grant(subject: "device-user", session: session)
            case .failure(let refusal): return Self.error("invalid_grant", description: refusal.description)
            }
        case "client_credentials":
            guard configuration.clientSecret != nil, request.headers.basic != nil else {
                return Self.error("unauthorized_client", status: .unauthorized)
            }
            return try await grant(subject: "service-account-" + configuration.clientID, session: nil)
        default:
            return Self.error("unsupported_grant_type")
        }
    }

    private enum Poll { case pending, slowDown, denied, expired, approved, unknown }

    private func pollDevice(_ code: String) async throws -> Response {
        let now = ContinuousClock.now
        let lifetime = Duration.seconds(configuration.deviceCodeLifetime)
        let minimum = Duration.seconds(configuration.interval) - .milliseconds(200)
        let slowDowns = configuration.slowDownPolls
        let polled: (Poll, String?) = state.withLock { state in
            guard var device = state.devices[code] else { return (.unknown, nil) }
            device.polls += 1
            let last = device.lastPoll
            device.lastPoll = now
            let poll: Poll =
                if now - device.issued > lifetime { .expired }
                else if device.polls <= slowDowns { .slowDown }
                else if let last, now - last < minimum { .slowDown }
                else {
                    switch device.decision {
                    case nil: .pending
                    case false?: .denied
                    case true?: .approved
                    }
                }
            // A decided or expired code is used up (in the same lock: one grant per approval).
            switch poll {
            case .pending, .slowDown: state.devices[code] = device
            case .expired, .denied, .approved, .unknown: state.devices[code] = nil
            }
            return (poll, device.scope)
        }
        switch polled.0 {
        case .unknown: return Self.error("invalid_grant", description: "unknown device code")
        case .expired: return Self.error("expired_token")
        case .slowDown: return Self.error("slow_down")
        case .pending: return Self.error("authorization_pending")
        case .denied: return Self.error("access_denied")
        case .approved:
            return try await grant(subject: "device-user", session: startSession(scope: polled.1))
        }
    }

    private func decide(_ request: Request) -> Response {
        let userCode = request.uri.queryParameters.get("user_code")?.uppercased() ?? ""
        let approve = request.uri.queryParameters.get("decision") != "deny"
        let found: Bool = state.withLock { state in
            guard let code = state.devices.first(where: { $0.value.userCode == userCode })?.key else { return false }
            state.devices[code]?.decision = approve
            return true
        }
        guard found else { return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "no such code\n"))) }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: approve ? "approved\n" : "declined\n")))
    }

    // MARK: - Sessions

    /// Why a refresh token is refused, in Keycloak's words.
    private enum Refusal: Error, CustomStringConvertible {
        case unknown, sessionEnded, offlineSessionEnded
        var description: String {
            switch self {
            case .unknown: "Token is not active"
            case .sessionEnded: "Session not active"
            case .offlineSessionEnded: "Offline session not active"
            }
        }
    }

    /// The scopes granted for `requested`: `openid` if asked, Keycloak's default `profile
    /// email`, and `offline_access` if asked and allowed.
    private func grantedScope(_ requested: String?) -> String {
        let asked = Set((requested ?? "").split(separator: " ").map(String.init))
        var granted = asked.contains("openid") ? ["openid"] : []
        granted += ["profile", "email"]
        if asked.contains("offline_access") && configuration.offlineAccess { granted.append("offline_access") }
        return granted.joined(separator: " ")
    }

    /// A new session for an approved device login; its id.
    private func startSession(scope requested: String?) -> String {
        let scope = grantedScope(requested)
        let now = configuration.now()
        let session = Session(
            created: now, lastRefresh: now, offline: scope.split(separator: " ").contains("offline_access"), scope: scope)
        let id = Self.randomToken()
        state.withLock { $0.sessions[id] = session }
        return id
    }

    /// The session of `token` if it is still alive (refreshed now), else why not. An ended
    /// session is forgotten with its tokens.
    private func refreshSession(_ token: String) -> Result<String, Refusal> {
        let now = configuration.now()
        let idle = configuration.ssoSessionIdle, max = configuration.ssoSessionMax
        let offlineIdle = configuration.offlineSessionIdle, revoke = configuration.revokeRefreshToken
        return state.withLock { state in
            guard let id = state.refreshTokens[token], var session = state.sessions[id] else { return .failure(.unknown) }
            let sinceRefresh = now.timeIntervalSince(session.lastRefresh)
            let refusal: Refusal? =
                if session.offline { sinceRefresh > TimeInterval(offlineIdle) ? .offlineSessionEnded : nil }
                else if sinceRefresh > TimeInterval(idle) || now.timeIntervalSince(session.created) > TimeInterval(max) { .sessionEnded }
                else { nil }
            if let refusal {
                state.sessions[id] = nil
                state.refreshTokens = state.refreshTokens.filter { $0.value != id }
                return .failure(refusal)
            }
            if revoke { state.refreshTokens[token] = nil }
            session.lastRefresh = now
            state.sessions[id] = session
            return .success(id)
        }
    }

    /// Tokens for `subject`; with a session, a new refresh token of it and Keycloak's
    /// `refresh_expires_in` (0 for an offline session; else the time to the session's idle or
    /// max end, whichever comes first) and `scope`.
    private func grant(subject: String, session id: String?) async throws -> Response {
        let now = configuration.now()
        let claims = AccessClaims(
            iss: IssuerClaim(value: issuerURL ?? ""), aud: AudienceClaim(value: [configuration.audience]),
            exp: ExpirationClaim(value: now.addingTimeInterval(TimeInterval(configuration.tokenLifetime))),
            sub: SubjectClaim(value: subject), iat: IssuedAtClaim(value: now), azp: configuration.clientID)
        let access = try await signing.sign(claims, kid: JWKIdentifier(string: "capture-issuer"))
        var answer: [String: Any] = [
            "access_token": access, "token_type": "Bearer", "expires_in": configuration.statedTokenLifetime ?? configuration.tokenLifetime,
        ]
        let refreshToken = id.map { _ in Self.randomToken() }
        let session: Session? = state.withLock { state in
            state.issuedTokens += 1
            guard let id, let refreshToken, let session = state.sessions[id] else { return nil }
            state.refreshTokens[refreshToken] = id
            return session
        }
        if let refreshToken, let session {
            answer["refresh_token"] = refreshToken
            answer["scope"] = session.scope
            let left = min(
                TimeInterval(configuration.ssoSessionIdle),
                TimeInterval(configuration.ssoSessionMax) - now.timeIntervalSince(session.created))
            answer["refresh_expires_in"] = session.offline ? 0 : Int64(Swift.max(0, left))
        }
        return Self.json(answer, status: .ok)
    }

    /// A public client names itself in the form; with a secret configured, HTTP Basic must carry it.
    private func clientAuthenticated(_ form: [String: String], request: Request) -> Bool {
        if let basic = request.headers.basic {
            guard let secret = configuration.clientSecret else { return false }
            return basic.username == configuration.clientID && basic.password == secret
        }
        return form["client_id"] == configuration.clientID
    }

    // MARK: - Helpers

    private static func form(_ request: Request) async throws -> [String: String] {
        var request = request
        let body = try await request.collectBody(upTo: 16 * 1024)
        var form: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            form[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return form
    }

    private static func error(_ code: String, description: String? = nil, status: HTTPResponse.Status = .badRequest) -> Response {
        var object: [String: Any] = ["error": code]
        if let description { object["error_description"] = description }
        return json(object, status: status)
    }

    private static func json(_ object: [String: Any], status: HTTPResponse.Status) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return json(String(decoding: data, as: UTF8.self), status: status)
    }

    private static func json(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
