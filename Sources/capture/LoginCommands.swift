import ArgumentParser
import CaptureWiring
import CaptureUpload
import Foundation
import Logging

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to the collector's OAuth 2.0 issuer (for a Keycloak-guarded collector).",
        discussion: """
            Needs auth.issuer and auth.client_id in the configuration (`capture config`). The \
            issuer's endpoints come from its /.well-known/openid-configuration.

            Without a client secret, login runs the device authorization grant (RFC 8628), made \
            for devices without a browser: it prints a URL and a code; open the URL on any \
            phone or computer, enter the code and log in there. Meanwhile login polls the \
            issuer as often as it allows, and once you approve, it keeps the refresh token in \
            <data dir>/login.json (mode 600). From then on `capture upload` and `capture sync` \
            get short-lived access tokens from it and renew them before they expire, so a long \
            upload never outlives its token. The token is never printed or logged. Login asks for auth.scope ("openid offline_access"): Keycloak's offline token lives \
            while refreshed once per 30 days (`capture sync` does); without it the login ends \
            with its SSO session (30 min idle, 10 h at most), and login warns (docs/upload.md).

            With auth.client_secret_file (fleets: one client per device, its secret in a file \
            of mode 600), tokens come from the client-credentials grant and nothing needs to be \
            kept: login checks that the issuer accepts the secret.

            --json prints one JSON object per line: first {"verification_uri", \
            "verification_uri_complete", "user_code", "expires_in"} as soon as the code is \
            there, then {"logged_in": true, "issuer", "login_file", "offline_token", "expires_at" (Unix ms, \
            unless refreshed)} at the end.

            EXIT CODES: 0 logged in; 69 the issuer is unreachable; 77 the login was declined, \
            the code expired, or the issuer refused the client or its secret; 78 no auth.issuer \
            or auth.client_id configured, or the issuer's discovery document names another issuer.
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let device = try data.device()
        guard let settings = try device.oauth() else {
            throw CLIError(
                .configuration, "no issuer configured: set auth.issuer and auth.client_id (`capture config --help`)")
        }
        var polling = DeviceLogin()
        polling.slowedDown = { Log.logger.info("the issuer asks to poll less often: every \($0) s") }
        let outcome = try await OAuthLogin.logIn(settings, polling: polling) { try output.printLine($0.shown, $0.lines) }
        if case .loggedIn(let login) = outcome, let warning = login.notOfflineWarning { Log.logger.warning("\(warning)") }
        try output.printLine(LoginReport(outcome, settings: settings), [outcome.line(settings)])
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the refresh token at the issuer and forget it.",
        discussion: """
            Reads <data dir>/login.json, revokes its refresh token at the issuer's \
            revocation endpoint (RFC 7009) if the issuer offers one, and deletes the file. If \
            the issuer cannot be reached, the file is deleted anyway and a warning says that \
            the token may stay valid at the issuer until it expires. Without a login, says so \
            and exits 0.

            EXIT CODES: 0 logged out, or not logged in; 74 the file cannot be deleted; 78 the \
            file is readable by others or not a login record (it is deleted nonetheless).
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let device = try data.device()
        let path = data.path + "/" + StoredLogin.fileName
        let logout = try await OAuthLogin.logOut(path) { try device.oauth() }
        if let error = logout.revocationError {
            Log.logger.warning("could not revoke the refresh token (\(CLIError.from(error).message)); it may stay valid at the issuer until it expires")
        }
        try output.printLine(LoginReport(logout), [logout.line(path: path)])
    }
}
