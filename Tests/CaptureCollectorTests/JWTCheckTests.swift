import CaptureCollector
import Crypto
import CryptoExtras
import Foundation
import JWTKit
import Testing

/// The collector's JWT checks (issue 12.3): RS256 from the configured JWKS, `exp`, `iss`, `aud`;
/// `alg: none` and HS256 keyed with the public key refused.
@Suite struct JWTCheckTests {
    static let issuer = "https://sso.example.com/realms/cyface"
    static let audience = "capture-collector"

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var sub: SubjectClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A key pair, its JWKS, and requirements built from that JWKS as the collector builds them.
    struct Fixture {
        let key: JWTKit.Insecure.RSA.PrivateKey
        let signer = JWTKeyCollection()
        let requirements: JWTRequirements

        init() async throws {
            key = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
            await signer.add(rsa: key, digestAlgorithm: .sha256, kid: "k1")
            let (n, e) = try key.publicKey.getKeyPrimitives()
            let jwks = JWKS(keys: [.rsa(.rs256, identifier: "k1", modulus: Self.b64(n), exponent: Self.b64(e))])
            requirements = try await .jwks(
                String(decoding: try JSONEncoder().encode(jwks), as: UTF8.self), issuer: JWTCheckTests.issuer,
                audience: JWTCheckTests.audience)
        }

        static func b64(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        func token(
            issuer: String = JWTCheckTests.issuer, audience: String = JWTCheckTests.audience, expiresIn: TimeInterval = 60,
            with keys: JWTKeyCollection? = nil
        ) async throws -> String {
            let claims = Claims(
                iss: .init(value: issuer), aud: .init(value: [audience]), exp: .init(value: Date().addingTimeInterval(expiresIn)),
                sub: "device")
            return try await (keys ?? signer).sign(claims, kid: "k1")
        }

        func refusal(_ token: String) async -> String? {
            do {
                try await requirements.check(token)
                return nil
            } catch {
                return error.description
            }
        }
    }

    @Test func aGoodTokenPasses() async throws {
        let fixture = try await Fixture()
        #expect(await fixture.refusal(try await fixture.token()) == nil)
    }

    @Test func aTokenSignedByAnotherKeyIsRefused() async throws {
        let fixture = try await Fixture()
        let other = JWTKeyCollection()
        await other.add(rsa: try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048)), digestAlgorithm: .sha256, kid: "k1")
        #expect(await fixture.refusal(try await fixture.token(with: other)) == "the signature does not verify")
        // A good token with one byte of its signature changed.
        var good = Array(try await fixture.token().utf8)
        good[good.count - 5] = good[good.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(await fixture.refusal(String(decoding: good, as: UTF8.self)) == "the signature does not verify")
    }

    @Test func anExpiredTokenIsRefused() async throws {
        let fixture = try await Fixture()
        #expect(await fixture.refusal(try await fixture.token(expiresIn: -5)) == "the token has expired")
    }

    @Test func theWrongAudienceOrIssuerIsRefused() async throws {
        let fixture = try await Fixture()
        #expect(await fixture.refusal(try await fixture.token(audience: "account")) == "wrong audience")
        #expect(await fixture.refusal(try await fixture.token(issuer: "https://evil.example.com/realms/cyface")) == "wrong issuer")
    }

    @Test func algNoneIsRefused() async throws {
        let fixture = try await Fixture()
        let good = try await fixture.token().split(separator: ".")
        let header = Fixture.b64(Data(#"{"alg":"none","typ":"JWT","kid":"k1"}"#.utf8))
        #expect(await fixture.refusal("\(header).\(good[1]).") == "algorithm none is not accepted")
        #expect(await fixture.refusal("\(header).\(good[1])") == "not a JWT")
    }

    /// The classic confusion: HS256 with the RSA public key (as published) for the HMAC secret.
    @Test func hs256KeyedWithThePublicKeyIsRefused() async throws {
        let fixture = try await Fixture()
        let forger = JWTKeyCollection()
        await forger.add(hmac: HMACKey(from: fixture.key.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "k1")
        let forged = try await fixture.token(with: forger)
        #expect(await fixture.refusal(forged) == "algorithm HS256 is not accepted")
    }

    @Test func garbageIsRefused() async throws {
        let fixture = try await Fixture()
        #expect(await fixture.refusal("not-a-token") == "not a JWT")
        #expect(await fixture.refusal("a.b.c") == "not a JWT")
    }
}
