import Foundation

/// Where the collector is and how to authenticate, resolved from layers of settings, each value
/// with the place it came from.
///
/// The standard layers, first match wins: command-line options (`--url`, `--token-file`,
/// `--trust-origin`), the environment (`CAPTURE_UPLOAD_URL`, `CAPTURE_TOKEN_FILE`,
/// `CAPTURE_TRUSTED_ORIGINS`), then `<data dir>/upload.json` (`{"url": …, "tokenFile": …,
/// "trustedOrigins": […]}`). An empty value counts as absent. The trusted origins are optional:
/// the first layer that names any gives all of them. Another source, such as a
/// configuration file, is one more ``Layer`` in the list given to ``resolve(_:)``.
///
/// ```swift
/// let settings = try UploadSettings.resolve(url: nil, tokenFile: nil, dataDirectory: directory)
/// print(settings.collectorURL.value, "from", settings.collectorURL.origin)   // … from $CAPTURE_UPLOAD_URL
/// ```
public struct UploadSettings: Sendable {
    /// The settings there are.
    public enum Key: String, Sendable, CaseIterable {
        /// The collector's base URL, such as `https://host/api/v4`.
        case collectorURL
        /// The path of the file holding the bearer token.
        case tokenFile
        /// Origins besides the collector's that may receive the token, as text: URLs separated
        /// by white space or commas (optional).
        case trustedOrigins
    }

    /// Where a value came from (or would have come from).
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// A command-line option, such as `--url`.
        case option(String)
        /// An environment variable, such as `CAPTURE_UPLOAD_URL`.
        case environment(String)
        /// A key in a settings file.
        case file(path: String, key: String)
        /// No layer set it: the built-in default (`capture config` shows these too).
        case builtIn

        /// `--url`, `$CAPTURE_UPLOAD_URL`, `"url" in /path/upload.json` or `default`.
        public var description: String {
            switch self {
            case .option(let name): name
            case .environment(let name): "$" + name
            case .file(let path, let key): "\"\(key)\" in \(path)"
            case .builtIn: "default"
            }
        }
    }

    /// A resolved value and where it came from.
    public struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
        /// The value.
        public var value: Value
        /// Where it came from.
        public var origin: Origin

        /// Creates a setting.
        public init(_ value: Value, from origin: Origin) {
            self.value = value
            self.origin = origin
        }
    }

    /// One place settings are looked up in: what it holds, and where it looks for every key
    /// (also for keys it does not hold, so that a missing setting can name every place to put it).
    public struct Layer: Sendable {
        /// The values it holds.
        public var values: [Key: String]
        /// Where it looks for each key.
        public var origins: [Key: Origin]

        /// Creates a layer.
        public init(values: [Key: String], origins: [Key: Origin]) {
            self.values = values
            self.origins = origins
        }

        /// The command-line options `--url`, `--token-file` and `--trust-origin` (repeatable).
        public static func options(url: String?, tokenFile: String?, trustedOrigins: [String] = []) -> Layer {
            Layer(
                values: [
                    .collectorURL: url, .tokenFile: tokenFile,
                    .trustedOrigins: trustedOrigins.isEmpty ? nil : trustedOrigins.joined(separator: " "),
                ].compactMapValues { $0 },
                origins: [
                    .collectorURL: .option("--url"), .tokenFile: .option("--token-file"),
                    .trustedOrigins: .option("--trust-origin"),
                ])
        }

        /// The environment variables `CAPTURE_UPLOAD_URL`, `CAPTURE_TOKEN_FILE` and
        /// `CAPTURE_TRUSTED_ORIGINS` (URLs separated by white space or commas).
        public static func environment(_ environment: [String: String]) -> Layer {
            let names: [Key: String] = [
                .collectorURL: "CAPTURE_UPLOAD_URL", .tokenFile: "CAPTURE_TOKEN_FILE",
                .trustedOrigins: "CAPTURE_TRUSTED_ORIGINS",
            ]
            return Layer(
                values: names.compactMapValues { environment[$0] }, origins: names.mapValues { .environment($0) })
        }

        /// `<data dir>/upload.json`, a JSON object with the string fields `url` and `tokenFile`
        /// and the array of strings `trustedOrigins`; empty if the file does not exist.
        ///
        /// - Throws: ``UploadSettingsError/malformedFile(path:)`` if it exists but is not such an object.
        public static func uploadJSON(dataDirectory: String) throws(UploadSettingsError) -> Layer {
            struct File: Decodable {
                var url: String?
                var tokenFile: String?
                var trustedOrigins: [String]?
            }
            let path = dataDirectory + "/upload.json"
            var layer = Layer(
                values: [:],
                origins: [
                    .collectorURL: .file(path: path, key: "url"), .tokenFile: .file(path: path, key: "tokenFile"),
                    .trustedOrigins: .file(path: path, key: "trustedOrigins"),
                ])
            guard let bytes = FileManager.default.contents(atPath: path) else { return layer }
            do {
                let file = try JSONDecoder().decode(File.self, from: bytes)
                layer.values = [
                    .collectorURL: file.url, .tokenFile: file.tokenFile,
                    .trustedOrigins: file.trustedOrigins.flatMap { $0.isEmpty ? nil : $0.joined(separator: " ") },
                ].compactMapValues { $0 }
            } catch {
                throw .malformedFile(path: path)
            }
            return layer
        }
    }

    /// The collector's base URL: an http or https URL with a host.
    public var collectorURL: Setting<String>
    /// How requests are authenticated.
    public enum Credentials: Sendable {
        /// A fixed token read from a file, and where the file's path came from.
        case tokenFile(Setting<String>, BearerToken)
        /// OAuth 2.0 tokens from an issuer (`auth.issuer`): renewed as they expire.
        case oauth(OAuthSettings)
    }

    /// How requests are authenticated.
    public var credentials: Credentials
    /// The token file's path, if the credentials are a token file.
    public var tokenFile: Setting<String>? {
        if case .tokenFile(let path, _) = credentials { return path }
        return nil
    }
    /// The token read from the token file, if the credentials are one.
    public var token: BearerToken? {
        if case .tokenFile(_, let token) = credentials { return token }
        return nil
    }
    /// Origins besides the collector's that may receive the token, if any layer names some.
    public var trustedOrigins: Setting<[URLOrigin]>?

    /// The credentials as an ``UploadAuthenticator`` for ``UploadRun`` or ``Uploader``.
    public var authenticator: any UploadAuthenticator {
        switch credentials {
        case .tokenFile(let path, let token): StaticToken(token, origin: path.value)
        case .oauth(let settings): OAuthSession(settings)
        }
    }

    /// Creates settings from resolved values (tests, or a caller that resolved them itself).
    public init(
        collectorURL: Setting<String>, tokenFile: Setting<String>, token: BearerToken,
        trustedOrigins: Setting<[URLOrigin]>? = nil
    ) {
        self.init(collectorURL: collectorURL, credentials: .tokenFile(tokenFile, token), trustedOrigins: trustedOrigins)
    }

    /// Creates settings from resolved values.
    public init(collectorURL: Setting<String>, credentials: Credentials, trustedOrigins: Setting<[URLOrigin]>? = nil) {
        self.collectorURL = collectorURL
        self.credentials = credentials
        self.trustedOrigins = trustedOrigins
    }

    /// Resolves the settings from `layers` (first non-empty value wins) and reads the token file.
    ///
    /// - Throws: ``UploadSettingsError/missing(_:searched:)`` when a key has no value in any
    ///   layer, ``UploadSettingsError/invalidURL(_:origin:)`` for a URL that is not http(s) with
    ///   a host, ``UploadSettingsError/invalidTrustedOrigin(_:origin:)`` for a trusted origin
    ///   that is not one either, and the token file's errors (see ``TokenFile/read(_:)``). The
    ///   URLs are checked before the token file is looked for.
    /// - Parameter oauth: OAuth 2.0 settings to use instead of a token file (none is looked for then).
    public static func resolve(_ layers: [Layer], oauth: OAuthSettings? = nil) throws(UploadSettingsError)
        -> UploadSettings
    {
        func find(_ key: Key) -> Setting<String>? {
            for layer in layers {
                if let value = layer.values[key], !value.isEmpty, let origin = layer.origins[key] {
                    return Setting(value, from: origin)
                }
            }
            return nil
        }
        func lookUp(_ key: Key) throws(UploadSettingsError) -> Setting<String> {
            guard let found = find(key) else { throw .missing(key, searched: layers.compactMap { $0.origins[key] }) }
            return found
        }
        var trusted: Setting<[URLOrigin]>?
        if let text = find(.trustedOrigins) {
            var origins: [URLOrigin] = []
            for word in text.value.split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init) {
                guard let origin = URLOrigin(word) else { throw .invalidTrustedOrigin(word, origin: text.origin) }
                origins.append(origin)
            }
            if !origins.isEmpty { trusted = Setting(origins, from: text.origin) }
        }
        let url = try lookUp(.collectorURL)
        guard let parsed = URL(string: url.value), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parsed.host != nil
        else { throw .invalidURL(url.value, origin: url.origin) }
        if let oauth { return UploadSettings(collectorURL: url, credentials: .oauth(oauth), trustedOrigins: trusted) }
        let tokenFile = try lookUp(.tokenFile)
        return UploadSettings(
            collectorURL: url, tokenFile: tokenFile, token: try TokenFile.read(tokenFile.value), trustedOrigins: trusted)
    }

    /// Resolves the settings from the standard layers: the options given, then `environment`
    /// (this process's if nil), then `<dataDirectory>/upload.json`.
    public static func resolve(
        url: String?, tokenFile: String?, trustedOrigins: [String] = [], dataDirectory: String,
        environment: [String: String]? = nil
    ) throws(UploadSettingsError) -> UploadSettings {
        let file = try Layer.uploadJSON(dataDirectory: dataDirectory)
        let environment = environment ?? ProcessInfo.processInfo.environment
        return try resolve([
            .options(url: url, tokenFile: tokenFile, trustedOrigins: trustedOrigins), .environment(environment), file,
        ])
    }
}
