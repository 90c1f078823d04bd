public import CaptureCore

/// What an upload needs to know about the collector: where it is, how requests are
/// authenticated and who else may receive the token. A plain value, resolved by the caller
/// (`CaptureWiring`'s `DeviceConfiguration.uploadSettings()` from options, environment, the
/// configuration file and `upload.json`) and handed to ``UploadRun``.
///
/// ```swift
/// let settings = UploadSettings(
///     collectorURL: "https://collector.example/api/v4",
///     credentials: .tokenFile(path: "/etc/capture/token", try TokenFile.read("/etc/capture/token")))
/// ```
public struct UploadSettings: Sendable {
    /// How requests are authenticated.
    public enum Credentials: Sendable {
        /// A fixed token read from the file at `path`.
        case tokenFile(path: String, BearerToken)
        /// OAuth 2.0 tokens from an issuer (`auth.issuer`): renewed as they expire.
        case oauth(OAuthSettings)
    }

    /// The collector's base URL, such as `https://host/api/v4`: http or https with a host.
    public var collectorURL: String
    /// How requests are authenticated.
    public var credentials: Credentials
    /// Origins besides the collector's that may receive the token (empty: none).
    public var trustedOrigins: [URLOrigin]

    /// Creates settings.
    public init(collectorURL: String, credentials: Credentials, trustedOrigins: [URLOrigin] = []) {
        self.collectorURL = collectorURL
        self.credentials = credentials
        self.trustedOrigins = trustedOrigins
    }

    /// The credentials as an ``UploadAuthenticator`` for ``UploadRun`` or ``Uploader``.
    public var authenticator: any UploadAuthenticator {
        switch credentials {
        case .tokenFile(let path, let token): StaticToken(token, origin: path)
        case .oauth(let settings): OAuthSession(settings)
        }
    }
}
