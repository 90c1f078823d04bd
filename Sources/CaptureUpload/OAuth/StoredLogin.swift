import CaptureCore
public import CaptureStorage
public import Foundation

/// What `capture login` keeps: the issuer and client it logged in to, the refresh token and how
/// long it lasts (``CaptureStorage/LoginLifetime``), in `<data dir>/login.json`, mode 0600
/// (written whole through ``AtomicFile``: a temporary file, fsync, rename, fsync of the
/// directory, so a power cut leaves the old record or the new one). Its descriptions never show
/// the token.
public struct StoredLogin: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The issuer logged in to.
    public var issuer: String
    /// The client id used.
    public var clientID: String
    /// The refresh token (secret).
    public var refreshToken: String
    /// When the login happened, ISO 8601.
    public var loggedIn: String
    /// How long it lasts without a refresh, and whether the issuer ended it; nil in a record
    /// written before capture kept it (then a refresh is due at once).
    public var lifetime: LoginLifetime?

    enum CodingKeys: String, CodingKey {
        case issuer
        case clientID = "client_id"
        case refreshToken = "refresh_token"
        case loggedIn = "logged_in"
        case lifetime
    }

    /// The file name in the data directory.
    public static let fileName = LoginLifetime.fileName

    /// Creates a login record.
    public init(
        issuer: String, clientID: String, refreshToken: BearerToken, loggedIn: Date = Date(), lifetime: LoginLifetime? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.refreshToken = refreshToken.secret
        self.loggedIn = ISO8601DateFormatter().string(from: loggedIn)
        self.lifetime = lifetime
    }

    /// `login to ISSUER as CLIENT at TIME`.
    public var description: String { "login to \(issuer) as \(clientID) at \(loggedIn)" }

    /// Reads the login at `path`; nil if there is none.
    ///
    /// - Throws: ``OAuthError/loginExposed(path:mode:)`` if the file is readable by others (it is
    ///   then not used), ``OAuthError/notALogin(_:)`` if it is not a login record.
    public static func read(_ path: String) throws(OAuthError) -> StoredLogin? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard info.st_mode & 0o077 == 0 else {
            throw .loginExposed(path: path, mode: String(info.st_mode & 0o777, radix: 8))
        }
        guard let bytes = FileManager.default.contents(atPath: path),
            let login = try? JSONDecoder().decode(StoredLogin.self, from: bytes), !login.refreshToken.isEmpty
        else { throw .notALogin(path) }
        return login
    }

    /// Writes it to `path` atomically, mode 0600.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let file = try AtomicFile(path: path)
        try file.append(Array(try encoder.encode(self)) + [0x0A])
        try file.commit()
    }
}
