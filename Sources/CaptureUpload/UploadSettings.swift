import Foundation

/// Where the collector is and how to authenticate, resolved from layers of settings, each value
/// with the place it came from.
///
/// The standard layers, first match wins: command-line options (`--url`, `--token-file`), the
/// environment (`CAPTURE_UPLOAD_URL`, `CAPTURE_TOKEN_FILE`), then `<data dir>/upload.json`
/// (`{"url": …, "tokenFile": …}`). An empty value counts as absent. Another source, such as a
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
    }

    /// Where a value came from (or would have come from).
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// A command-line option, such as `--url`.
        case option(String)
        /// An environment variable, such as `CAPTURE_UPLOAD_URL`.
        case environment(String)
        /// A key in a settings file.
        case file(path: String, key: String)

        /// `--url`, `$CAPTURE_UPLOAD_URL` or `"url" in /path/upload.json`.
        public var description: String {
            switch self {
            case .option(let name): name
            case .environment(let name): "$" + name
            case .file(let path, let key): "\"\(key)\" in \(path)"
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

        /// The command-line options `--url` and `--token-file`.
        public static func options(url: String?, tokenFile: String?) -> Layer {
            Layer(
                values: [.collectorURL: url, .tokenFile: tokenFile].compactMapValues { $0 },
                origins: [.collectorURL: .option("--url"), .tokenFile: .option("--token-file")])
        }

        /// The environment variables `CAPTURE_UPLOAD_URL` and `CAPTURE_TOKEN_FILE`.
        public static func environment(_ environment: [String: String]) -> Layer {
            let names: [Key: String] = [.collectorURL: "CAPTURE_UPLOAD_URL", .tokenFile: "CAPTURE_TOKEN_FILE"]
            return Layer(
                values: names.compactMapValues { environment[$0] }, origins: names.mapValues { .environment($0) })
        }

        /// `<data dir>/upload.json`, a JSON object with the string fields `url` and `tokenFile`;
        /// empty if the file does not exist.
        ///
        /// - Throws: ``UploadSettingsError/malformedFile(path:)`` if it exists but is not such an object.
        public static func uploadJSON(dataDirectory: String) throws(UploadSettingsError) -> Layer {
            struct File: Decodable {
                var url: String?
                var tokenFile: String?
            }
            let path = dataDirectory + "/upload.json"
            var layer = Layer(
                values: [:], origins: [.collectorURL: .file(path: path, key: "url"), .tokenFile: .file(path: path, key: "tokenFile")])
            guard let bytes = FileManager.default.contents(atPath: path) else { return layer }
            do {
                let file = try JSONDecoder().decode(File.self, from: bytes)
                layer.values = [.collectorURL: file.url, .tokenFile: file.tokenFile].compactMapValues { $0 }
            } catch {
                throw .malformedFile(path: path)
            }
            return layer
        }
    }

    /// The collector's base URL: an http or https URL with a host.
    public var collectorURL: Setting<String>
    /// The token file's path.
    public var tokenFile: Setting<String>
    /// The token read from it.
    public var token: BearerToken

    /// The token as an ``UploadAuthenticator`` for ``UploadRun`` or ``Uploader``.
    public var authenticator: StaticToken { StaticToken(token, origin: tokenFile.value) }

    /// Creates settings from resolved values (tests, or a caller that resolved them itself).
    public init(collectorURL: Setting<String>, tokenFile: Setting<String>, token: BearerToken) {
        self.collectorURL = collectorURL
        self.tokenFile = tokenFile
        self.token = token
    }

    /// Resolves the settings from `layers` (first non-empty value wins) and reads the token file.
    ///
    /// - Throws: ``UploadSettingsError/missing(_:searched:)`` when a key has no value in any
    ///   layer, ``UploadSettingsError/invalidURL(_:origin:)`` for a URL that is not http(s) with
    ///   a host, and the token file's errors (see ``TokenFile/read(_:)``). The URL is checked
    ///   before the token file is looked for.
    public static func resolve(_ layers: [Layer]) throws(UploadSettingsError) -> UploadSettings {
        func lookUp(_ key: Key) throws(UploadSettingsError) -> Setting<String> {
            for layer in layers {
                if let value = layer.values[key], !value.isEmpty, let origin = layer.origins[key] {
                    return Setting(value, from: origin)
                }
            }
            throw .missing(key, searched: layers.compactMap { $0.origins[key] })
        }
        let url = try lookUp(.collectorURL)
        guard let parsed = URL(string: url.value), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parsed.host != nil
        else { throw .invalidURL(url.value, origin: url.origin) }
        let tokenFile = try lookUp(.tokenFile)
        return UploadSettings(collectorURL: url, tokenFile: tokenFile, token: try TokenFile.read(tokenFile.value))
    }

    /// Resolves the settings from the standard layers: the options given, then `environment`
    /// (this process's if nil), then `<dataDirectory>/upload.json`.
    public static func resolve(
        url: String?, tokenFile: String?, dataDirectory: String, environment: [String: String]? = nil
    ) throws(UploadSettingsError) -> UploadSettings {
        let file = try Layer.uploadJSON(dataDirectory: dataDirectory)
        let environment = environment ?? ProcessInfo.processInfo.environment
        return try resolve([.options(url: url, tokenFile: tokenFile), .environment(environment), file])
    }
}
