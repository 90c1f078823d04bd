import CaptureStorage
import CaptureUpload
import Foundation
import Testing

/// What `capture login` and `capture logout` print: the JSON objects keep the keys of
/// docs/upload.md (they were written by hand before), nothing secret is in them, and the lines
/// say what happened.
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
        #expect(report.line == "logged in to https://id.example/realms/r as box; the refresh token is in /d/login.json (mode 600)")
    }

    @Test func aClientSecretLoginSaysNothingIsKept() throws {
        var settings = settings
        settings.clientSecretFile = "/etc/capture/secret"
        let grant = TokenGrant(accessToken: BearerToken("secret-a"), expiresIn: 300, refreshToken: nil)
        let report = LoginReport(.clientCredentials(grant), settings: settings)
        #expect(try json(report) == #"{"grant":"client_credentials","issuer":"https://id.example/realms/r","logged_in":true}"#)
        #expect(report.line.hasPrefix("the issuer https://id.example/realms/r accepts the client secret in /etc/capture/secret"))
        #expect(report.line.contains("(valid 300 s)") && report.line.hasSuffix("nothing is kept"))
    }

    @Test func aLogoutSaysWhetherTheTokenWasRevoked() throws {
        let login = StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("secret-r"))
        let out = LoginReport(OAuthLogin.Logout(login: login, revoked: "yes"), path: "/d/login.json")
        #expect(try json(out) == #"{"issuer":"https://id.example/realms/r","logged_out":true,"revoked":"yes"}"#)
        #expect(out.line == "logged out of https://id.example/realms/r: refresh token revoked: yes; /d/login.json deleted")
        let none = LoginReport(OAuthLogin.Logout(login: nil, revoked: "no"), path: "/d/login.json")
        #expect(try json(none) == #"{"logged_out":false,"reason":"not logged in"}"#)
        #expect(none.line == "not logged in (no /d/login.json)")
    }

    @Test func theCodeIsShownWithoutTheDeviceCode() throws {
        let authorization = DeviceAuthorization(
            deviceCode: BearerToken("secret-d"), userCode: "WDJB-MJHT", verificationURI: "https://id.example/device",
            verificationURIComplete: nil, expiresIn: 600, interval: 5)
        #expect(
            try json(authorization.shown)
                == #"{"expires_in":600,"user_code":"WDJB-MJHT","verification_uri":"https://id.example/device"}"#)
        #expect(
            authorization.lines == [
                "To log in, open https://id.example/device and enter the code WDJB-MJHT",
                "Waiting for the approval; the code expires in 10 min…",
            ])
        var complete = authorization
        (complete.verificationURIComplete, complete.expiresIn) = ("https://id.example/device?user_code=WDJB-MJHT", 90)
        #expect(complete.lines[1] == "(or open https://id.example/device?user_code=WDJB-MJHT)")
        #expect(complete.lines[2].hasSuffix("expires in 90 s…"))
    }
}
