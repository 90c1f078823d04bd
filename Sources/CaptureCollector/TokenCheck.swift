import Foundation
import HTTPTypes
public import Hummingbird
import HummingbirdAuth
public import JWTKit

/// How the collector authenticates requests.
public enum CollectorAuthentication: Sendable {
    /// One fixed bearer token (simple tests).
    case token(String)
    /// JWT bearer tokens from an OAuth 2.0 issuer, as the real collector takes them.
    case jwt(JWTRequirements)
}

/// What a JWT must be for the collector: signed RS256 by a key of ``keys`` (a JWKS), not
/// expired, issued by ``issuer`` and meant for ``audience``. Any other algorithm is refused
/// before the signature is looked at: `none`, and HS256 made with the public key as the secret
/// (the classic confusion), never reach jwt-kit's verification.
public struct JWTRequirements: Sendable {
    /// The keys tokens may be signed with.
    public let keys: JWTKeyCollection
    /// The `aud` a token must name.
    public let audience: String
    private let issuer: @Sendable () -> String?

    /// Requirements with a fixed issuer.
    public init(keys: JWTKeyCollection, issuer: String, audience: String) {
        self.init(keys: keys, audience: audience) { issuer }
    }

    /// Requirements whose issuer is known later (a collector's own issuer, once bound to a port).
    init(keys: JWTKeyCollection, audience: String, issuer: @escaping @Sendable () -> String?) {
        self.keys = keys
        self.audience = audience
        self.issuer = issuer
    }

    /// Requirements with the keys of a JWKS document (`<issuer>/protocol/openid-connect/certs`
    /// at Keycloak).
    public static func jwks(_ json: String, issuer: String, audience: String) async throws -> JWTRequirements {
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: json)
        return JWTRequirements(keys: keys, issuer: issuer, audience: audience)
    }

    /// The algorithms accepted.
    static let algorithms: Set<String> = ["RS256"]

    /// Checks `token`; throws why it is refused (the reason goes into the 401's body, never the token).
    public func check(_ token: String) async throws(TokenRefusal) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.base64URL(parts[0]),
            let object = (try? JSONSerialization.jsonObject(with: header)) as? [String: Any]
        else { throw TokenRefusal("not a JWT") }
        let algorithm = object["alg"] as? String ?? "none"
        guard Self.algorithms.contains(algorithm) else { throw TokenRefusal("algorithm \(algorithm) is not accepted") }
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw TokenRefusal("the token has expired")
        } catch {
            throw TokenRefusal("the signature does not verify")
        }
        guard let expected = issuer(), claims.iss.value == expected else { throw TokenRefusal("wrong issuer") }
        guard claims.aud.value.contains(audience) else { throw TokenRefusal("wrong audience") }
    }

    static func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Why a token was refused.
public struct TokenRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line, without the token.
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The claims the collector reads from an access token.
struct AccessClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var sub: SubjectClaim?
    var iat: IssuedAtClaim?
    var azp: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

extension CollectorAuthentication {
    /// Checks the request's `Authorization: Bearer`; throws 401 (with the reason) if it fails.
    func authorize(_ request: Request) async throws {
        guard let given = request.headers.bearer?.token else {
            throw HTTPError(.unauthorized, message: "a valid bearer token is required")
        }
        switch self {
        case .token(let expected):
            let expected = Array(expected.utf8)
            let given = Array(given.utf8)
            // Compare in time independent of where the first difference is.
            var difference = UInt8(given.count == expected.count ? 0 : 1)
            for (index, byte) in expected.enumerated() { difference |= byte ^ (index < given.count ? given[index] : 0) }
            guard difference == 0 else { throw HTTPError(.unauthorized, message: "a valid bearer token is required") }
        case .jwt(let requirements):
            do {
                try await requirements.check(given)
            } catch {
                throw HTTPError(.unauthorized, message: "bearer token refused: \(error)")
            }
        }
    }
}
