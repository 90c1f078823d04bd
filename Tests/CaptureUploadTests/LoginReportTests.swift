import CaptureStorage
import CaptureUpload
import Foundation
import Testing

/// What `capture login` and `capture logout` print as JSON: the objects keep the keys of
/// docs/upload.md (they were written by hand before) and nothing secret is in them (the lines
/// for a person: LoginTextTests).
struct LoginReportTests {
    let settings = OAuthSettings(issuer: "https://id.example/realms/r", clientID: "box", clientSecretFile: nil, dataDirectory: "/d")

    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aDeviceLoginReportsItsFileAndLifetime() throws {
        let life = LoginLifetime(grantedAt: 1_000, refreshExpiresIn: 0, scope: "openid offline_access")
        let login = StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("secret-r"), lifetime: life)
        let report = LoginReport(.loggedIn(login), settings: settings)
        let text = try json(report)
        #expect(
            text == #"{"expires_at":\#(life.expiresAt),"issuer":"https://id.example/realms/r","logged_in":true,"#
                + #""login_file":"/d/login.json","offline_token":true}"#)
        #expect(!text.contains("secret"))
    }

    @Test func aClientSecretLoginSaysNothingIsKept() throws {
        var settings = settings
        settings.clientSecretFile = "/etc/capture/secret"
        let grant = TokenGrant(accessToken: BearerToken("secret-a"), expiresIn: 300, refreshToken: nil)
        let report = LoginReport(.clientCredentials(grant), settings: settings)
        #expect(try json(report) == #"{"grant":"client_credentials","issuer":"https://id.example/realms/r","logged_in":true}"#)
    }

    @Test func aLogoutSaysWhetherTheTokenWasRevoked() throws {
        let login = StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("secret-r"))
        let out = LoginReport(OAuthLogin.Logout(login: login, revoked: "yes"))
        #expect(try json(out) == #"{"issuer":"https://id.example/realms/r","logged_out":true,"revoked":"yes"}"#)
        let none = LoginReport(OAuthLogin.Logout(login: nil, revoked: "no"))
        #expect(try json(none) == #"{"logged_out":false,"reason":"not logged in"}"#)
    }

    @Test func theCodeIsShownWithoutTheDeviceCode() throws {
        let authorization = DeviceAuthorization(
            deviceCode: BearerToken("secret-d"), userCode: "WDJB-MJHT", verificationURI: "https://id.example/device",
            verificationURIComplete: nil, expiresIn: 600, interval: 5)
        #expect(
            try json(authorization.shown)
                == #"{"expires_in":600,"user_code":"WDJB-MJHT","verification_uri":"https://id.example/device"}"#)
    }
}
