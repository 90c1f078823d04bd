/// A bearer token: sent in `Authorization`, never printed. Its descriptions are redacted, so
/// that string interpolation, logging or `dump` cannot leak it.
public struct BearerToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token itself.
    public let secret: String

    /// Wraps a token.
    public init(_ secret: String) { self.secret = secret }

    /// The `Authorization` header value, `Bearer <token>`.
    public var authorization: String { "Bearer \(secret)" }

    /// `<redacted>`.
    public var description: String { "<redacted>" }
    /// `<redacted>`.
    public var debugDescription: String { "<redacted>" }
}

/// Gives the ``Uploader`` a bearer token for each request.
///
/// The uploader asks before every request rather than once per run, so an implementation that
/// holds short-lived tokens (an OAuth 2.0 client) can renew one before it expires. Throwing
/// ends the upload of the measurement as unauthorized, like a 401: the session is kept so a
/// later run with working credentials resumes it.
public protocol UploadAuthenticator: Sendable {
    /// The token to send with the next request.
    func bearerToken() async throws -> BearerToken
    /// Where the credentials come from, for messages: a file path or an issuer, never a secret.
    var origin: String { get }
    /// What helps when the collector refuses the credentials; the front end words it.
    var remedy: CredentialsRemedy { get }
    /// Whether a refused token can be replaced by a new one (an OAuth session) or not (a fixed token).
    var renewable: Bool { get }
    /// The collector answered 401 to the last token: forget it, so that the next
    /// ``bearerToken()`` gets a new one.
    func tokenRejected() async
}

extension UploadAuthenticator {
    public var remedy: CredentialsRemedy { .renewToken(file: origin) }
    public var renewable: Bool { false }
    public func tokenRejected() async {}
}

/// What helps when the credentials are refused. A library names the remedy; the front end says
/// how to apply it (`capture` names its commands: `ErrorMapping+Upload.swift`).
public enum CredentialsRemedy: Sendable, Equatable, CustomStringConvertible {
    /// Put a valid token into the token file at this path, then try again.
    case renewToken(file: String)
    /// Log in to the issuer again, then resume the upload.
    case logIn

    /// What to do, without naming a command: `renew the token in /etc/capture/token`.
    public var description: String {
        switch self {
        case .renewToken(let file): "renew the token in \(file)"
        case .logIn: "log in to the issuer again"
        }
    }
}

/// A fixed token, read once (from a token file; see ``TokenFile``).
public struct StaticToken: UploadAuthenticator {
    /// The token.
    public let token: BearerToken
    /// Where it was read from.
    public let origin: String

    /// A fixed token from `origin`.
    public init(_ token: BearerToken, origin: String) {
        self.token = token
        self.origin = origin
    }

    /// Always the same token.
    public func bearerToken() async throws -> BearerToken { token }
}
