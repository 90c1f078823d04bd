import CaptureCore
import CaptureConfig
import CaptureWiring
import CaptureUpload
import Foundation
import Testing

/// The collector's settings as an upload gets them (``DeviceConfiguration/uploadSettings()``):
/// the same layers as every key, `upload.json` below the file, a missing value naming every
/// place to put it, and the token file read last.
@Suite struct UploadSettingsTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func token(_ name: String, _ text: String = "secret\n") -> String {
        let path = directory + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        return path
    }

    func uploadJSON(_ text: String) throws {
        try text.write(toFile: directory + "/upload.json", atomically: true, encoding: .utf8)
    }

    /// The configuration with no file, the data directory `directory`, and `environment`.
    func device(
        _ flags: [ConfigKey: DeviceConfiguration.Flag] = [:], environment: [String: String] = [:]
    ) throws -> DeviceConfiguration {
        try DeviceConfiguration.load(
            flags: flags, environment: ["CAPTURE_CONFIG": "/dev/null", "CAPTURE_HOME": directory].merging(environment) { $1 })
    }

    func token(of settings: UploadSettings) -> (path: String, secret: String)? {
        guard case .tokenFile(let path, let token) = settings.credentials else { return nil }
        return (path, token.secret)
    }

    @Test func optionsWinOverTheEnvironmentWhichWinsOverUploadJSON() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = token("a", "token-a"), b = token("b", "token-b"), c = token("c", "token-c")
        try uploadJSON(#"{"url": "https://file.example/api/v4", "tokenFile": "\#(c)"}"#)
        let environment = ["CAPTURE_UPLOAD_URL": "https://env.example/", "CAPTURE_TOKEN_FILE": b]

        var device = try self.device()
        var settings = try device.uploadSettings()
        #expect(settings.collectorURL == "https://file.example/api/v4")
        #expect(device.collectorURL?.origin == .file(path: directory + "/upload.json", key: "url"))
        #expect(device.tokenFile?.origin == .file(path: directory + "/upload.json", key: "tokenFile"))
        #expect(token(of: settings)?.path == c)
        #expect(token(of: settings)?.secret == "token-c")

        device = try self.device(environment: environment)
        settings = try device.uploadSettings()
        #expect(settings.collectorURL == "https://env.example/")
        #expect(device.collectorURL?.origin == .environment("CAPTURE_UPLOAD_URL"))
        #expect(device.tokenFile?.origin.description == "$CAPTURE_TOKEN_FILE")
        #expect(settings.authenticator.origin == b)

        // An empty value counts as absent.
        device = try self.device(
            [.collectorURL: .init("", option: "--url"), .tokenFile: .init(a, option: "--token-file")], environment: environment)
        settings = try device.uploadSettings()
        #expect(settings.collectorURL == "https://env.example/")
        #expect(device.tokenFile == .init(a, from: .option("--token-file")))
        #expect(token(of: settings)?.secret == "token-a")
    }

    @Test func aMissingValueNamesEveryPlaceItWasLookedFor() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let json = directory + "/upload.json"
        #expect(
            throws: CollectorSettingsError.missing(
                .collectorURL,
                searched: [
                    .option("--url"), .environment("CAPTURE_UPLOAD_URL"), .file(path: "/dev/null", key: "collector.url"),
                    .file(path: json, key: "url"),
                ])
        ) { try device().uploadSettings() }
        #expect(
            throws: CollectorSettingsError.missing(
                .tokenFile,
                searched: [
                    .option("--token-file"), .environment("CAPTURE_TOKEN_FILE"),
                    .file(path: "/dev/null", key: "collector.token_file"), .file(path: json, key: "tokenFile"),
                ])
        ) { try device([.collectorURL: .init("http://127.0.0.1:1/", option: "--url")]).uploadSettings() }
        // A command without those options (`capture sync`, doctor) is not told to pass them (issue 32).
        #expect(
            throws: CollectorSettingsError.missing(
                .collectorURL,
                searched: [
                    .environment("CAPTURE_UPLOAD_URL"), .file(path: "/dev/null", key: "collector.url"), .file(path: json, key: "url"),
                ])
        ) { try device().uploadSettings(options: []) }
    }

    @Test func theURLIsCheckedBeforeTheTokenFile() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for bad in ["ftp://127.0.0.1/", "127.0.0.1:8080", "https://"] {
            let expected = DeviceConfigurationError(
                place: "--url", key: "collector.url", expected: ConfigKey.collectorURL.expected, kind: .badValue(found: bad))
            #expect(throws: expected) {
                try device([.collectorURL: .init(bad, option: "--url"), .tokenFile: .init("/nonexistent", option: "--token-file")])
                    .uploadSettings()
            }
        }
        // A good URL: the token file is looked for next.
        #expect(throws: TokenFileError.missing(path: "/nonexistent", reason: "No such file or directory")) {
            try device([.collectorURL: .init("http://127.0.0.1:1/", option: "--url"), .tokenFile: .init("/nonexistent", option: "--token-file")])
                .uploadSettings()
        }
    }

    /// A broken upload.json is the upload's error, not every command's.
    @Test func aMalformedUploadJSONIsRefusedByTheUploadOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for text in [#"{"url": 42}"#, #"{"trustedOrigins": "https://a.example"}"#, "[]", "{nope"] {
            try uploadJSON(text)
            let device = try device([.collectorURL: .init("http://x/", option: "--url"), .tokenFile: .init("/t", option: "--token-file")])
            #expect(throws: CollectorSettingsError.malformedUploadJSON(path: directory + "/upload.json"), "\(text)") {
                try device.uploadSettings()
            }
        }
    }

    @Test func aBadValueInUploadJSONNamesTheFile() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try uploadJSON(#"{"url": "ftp://x.example"}"#)
        #expect {
            try device()
        } throws: { error in
            (error as? DeviceConfigurationError)?.description
                == "\(directory)/upload.json: collector.url: expected \(ConfigKey.collectorURL.expected), not 'ftp://x.example'"
        }
    }

    @Test func oauthUnlessATokenFileIsGiven() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let issuer = ["CAPTURE_UPLOAD_URL": "https://collector.example/api/v4", "CAPTURE_AUTH_ISSUER": "https://sso.example/realms/cyface"]
        #expect(throws: DeviceConfigurationError.self) { try device(environment: issuer).uploadSettings() }
        let oauth = try device(environment: issuer.merging(["CAPTURE_AUTH_CLIENT_ID": "capture"]) { $1 }).uploadSettings()
        guard case .oauth(let settings) = oauth.credentials else {
            Issue.record("no OAuth settings: \(oauth.credentials)")
            return
        }
        #expect(settings == OAuthSettings(
            issuer: "https://sso.example/realms/cyface", clientID: "capture", clientSecretFile: nil, dataDirectory: directory))
        let a = token("a", "token-a")
        let given = try device([.tokenFile: .init(a, option: "--token-file")], environment: issuer).uploadSettings()
        #expect(token(of: given)?.secret == "token-a")
    }

    @Test func theScopeAskedForIsOpenIDAndOfflineAccessUnlessConfigured() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let issuer = ["CAPTURE_AUTH_ISSUER": "https://sso.example/realms/cyface", "CAPTURE_AUTH_CLIENT_ID": "capture"]
        #expect(try device(environment: issuer).oauth()?.scope == "openid offline_access")
        let set = issuer.merging(["CAPTURE_AUTH_SCOPE": "  openid   profile "]) { $1 }
        #expect(try device(environment: set).oauth()?.scope == "openid profile")
        #expect(throws: DeviceConfigurationError.self) {
            try device(environment: issuer.merging(["CAPTURE_AUTH_SCOPE": #"openid "x""#]) { $1 })
        }
    }
}

@Suite struct TrustedOriginSettingsTests {
    let directory: String
    let tokenPath: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trusted-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        tokenPath = directory + "/token"
        _ = FileManager.default.createFile(atPath: tokenPath, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600])
    }

    func device(_ options: [String] = [], environment: [String: String] = [:]) throws -> DeviceConfiguration {
        var flags: [ConfigKey: DeviceConfiguration.Flag] = [
            .collectorURL: .init("https://collector.example/api/v4", option: "--url"), .tokenFile: .init(tokenPath, option: "--token-file"),
        ]
        if !options.isEmpty { flags[.trustedOrigins] = .init(options, option: "--trust-origin") }
        return try DeviceConfiguration.load(
            flags: flags, environment: ["CAPTURE_CONFIG": "/dev/null", "CAPTURE_HOME": directory].merging(environment) { $1 })
    }

    @Test func noneByDefaultThenOptionsOverTheEnvironmentOverUploadJSON() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try device().uploadSettings().trustedOrigins.isEmpty)
        try #"{"trustedOrigins": ["https://a.example", "http://b.example:8080/x"]}"#.write(
            toFile: directory + "/upload.json", atomically: true, encoding: .utf8)
        var device = try self.device()
        #expect(try device.uploadSettings().trustedOrigins == [URLOrigin("https://a.example:443")!, URLOrigin("http://b.example:8080")!])
        #expect(device.trustedOrigins.origin == .file(path: directory + "/upload.json", key: "trustedOrigins"))
        device = try self.device(environment: ["CAPTURE_TRUSTED_ORIGINS": "https://c.example, https://d.example"])
        #expect(try device.uploadSettings().trustedOrigins == [URLOrigin("https://c.example")!, URLOrigin("https://d.example")!])
        #expect(device.trustedOrigins.origin == .environment("CAPTURE_TRUSTED_ORIGINS"))
        device = try self.device(["https://e.example", "https://f.example:8443"], environment: ["CAPTURE_TRUSTED_ORIGINS": "https://c.example"])
        #expect(try device.uploadSettings().trustedOrigins == [URLOrigin("https://e.example")!, URLOrigin("https://f.example:8443")!])
        #expect(device.trustedOrigins.origin == .option("--trust-origin"))
        // Each option's value is one origin, without the spaces around it.
        device = try self.device([" https://g.example "])
        #expect(device.trustedOrigins.value == ["https://g.example"])
        #expect(try device.uploadSettings().trustedOrigins == [URLOrigin("https://g.example")!])
    }

    @Test func aTrustedOriginThatIsNotAnHTTPURLIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let expected = ConfigKey.trustedOrigins.expected
        #expect(
            throws: DeviceConfigurationError(
                place: "--trust-origin", key: "collector.trusted_origins", expected: expected, kind: .badValue(found: "ftp://x.example"))
        ) { try device(["https://ok.example", "ftp://x.example"]) }
        #expect(
            throws: DeviceConfigurationError(
                place: "$CAPTURE_TRUSTED_ORIGINS", key: "collector.trusted_origins", expected: expected, kind: .badValue(found: "nohost"))
        ) { try device(environment: ["CAPTURE_TRUSTED_ORIGINS": "https://ok.example nohost"]) }
    }
}
