import CaptureCore
import CaptureStorage
import CaptureUpload
@testable import capture
import Testing

/// The lines `capture login` and `capture logout` print for a person.
struct LoginTextTests {
    let settings = OAuthSettings(issuer: "https://id.example/realms/r", clientID: "box", clientSecretFile: nil, dataDirectory: "/d")

    @Test func aLoginSaysWhereTheRefreshTokenIsOrThatNothingIsKept() {
        let login = StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("secret-r"))
        #expect(
            OAuthLogin.Outcome.loggedIn(login).line(settings)
                == "logged in to https://id.example/realms/r as box; the refresh token is in /d/login.json (mode 600)")
        var settings = settings
        settings.clientSecretFile = "/etc/capture/secret"
        let grant = TokenGrant(accessToken: BearerToken("secret-a"), expiresIn: 300, refreshToken: nil)
        #expect(
            OAuthLogin.Outcome.clientCredentials(grant).line(settings)
                == "the issuer https://id.example/realms/r accepts the client secret in /etc/capture/secret: access tokens "
                + "(valid 300 s) come from the client-credentials grant; nothing is kept")
    }

    @Test func aLoginThatIsNoOfflineTokenIsWarnedOfWithWhenItEnds() {
        let life = LoginLifetime(grantedAt: 1_000, refreshExpiresIn: 1800, scope: "openid")
        let login = StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("secret-r"), lifetime: life)
        #expect(
            login.notOfflineWarning
                == "the issuer granted no offline token (scope \"openid\", refresh_expires_in 1800 s): this login ends "
                + "\(TextFormat.time(life.expiresAt)) unless refreshed, and with its SSO session at the latest; allow the client "
                + "the offline_access scope at the issuer (docs/upload.md, Keycloak) and log in again")
        let offline = LoginLifetime(grantedAt: 1_000, refreshExpiresIn: 0, scope: "openid offline_access")
        #expect(StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("r"), lifetime: offline).notOfflineWarning == nil)
    }

    @Test func aLogoutSaysWhetherTheTokenWasRevoked() {
        let login = StoredLogin(issuer: settings.issuer, clientID: "box", refreshToken: BearerToken("secret-r"))
        #expect(
            OAuthLogin.Logout(login: login, revoked: "yes").line(path: "/d/login.json")
                == "logged out of https://id.example/realms/r: refresh token revoked: yes; /d/login.json deleted")
        #expect(OAuthLogin.Logout(login: nil, revoked: "no").line(path: "/d/login.json") == "not logged in (no /d/login.json)")
    }

    @Test func theCodeIsShownWithWhereToEnterItAndHowLongItLasts() {
        let authorization = DeviceAuthorization(
            deviceCode: BearerToken("secret-d"), userCode: "WDJB-MJHT", verificationURI: "https://id.example/device",
            verificationURIComplete: nil, expiresIn: 600, interval: 5)
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
