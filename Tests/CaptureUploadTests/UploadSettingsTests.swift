import CaptureUpload
import Foundation
import Testing

@Suite struct UploadSettingsTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func token(_ name: String, _ text: String = "secret\n", mode: Int = 0o600) -> String {
        let path = directory + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        return path
    }

    func uploadJSON(_ text: String) throws {
        try text.write(toFile: directory + "/upload.json", atomically: true, encoding: .utf8)
    }

    @Test func optionsWinOverTheEnvironmentWhichWinsOverUploadJSON() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = token("a", "token-a"), b = token("b", "token-b"), c = token("c", "token-c")
        try uploadJSON(#"{"url": "https://file.example/api/v4", "tokenFile": "\#(c)"}"#)
        let environment = ["CAPTURE_UPLOAD_URL": "https://env.example/", "CAPTURE_TOKEN_FILE": b]
        let json = UploadSettings.Origin.file(path: directory + "/upload.json", key: "url")

        var settings = try UploadSettings.resolve(url: nil, tokenFile: nil, dataDirectory: directory, environment: [:])
        #expect(settings.collectorURL == .init("https://file.example/api/v4", from: json))
        #expect(settings.tokenFile == .init(c, from: .file(path: directory + "/upload.json", key: "tokenFile")))
        #expect(settings.token == BearerToken("token-c"))

        settings = try UploadSettings.resolve(url: nil, tokenFile: nil, dataDirectory: directory, environment: environment)
        #expect(settings.collectorURL == .init("https://env.example/", from: .environment("CAPTURE_UPLOAD_URL")))
        #expect(settings.tokenFile?.origin.description == "$CAPTURE_TOKEN_FILE")
        #expect(settings.authenticator.origin == b)

        // An empty value counts as absent.
        settings = try UploadSettings.resolve(url: "", tokenFile: a, dataDirectory: directory, environment: environment)
        #expect(settings.collectorURL.value == "https://env.example/")
        #expect(settings.tokenFile == .init(a, from: .option("--token-file")))
        #expect(settings.token?.secret == "token-a")
    }

    @Test func aMissingValueNamesEveryPlaceItWasLookedFor() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/upload.json"
        #expect(
            throws: UploadSettingsError.missing(
                .collectorURL, searched: [.option("--url"), .environment("CAPTURE_UPLOAD_URL"), .file(path: file, key: "url")])
        ) { try UploadSettings.resolve(url: nil, tokenFile: nil, dataDirectory: directory, environment: [:]) }
        #expect(
            throws: UploadSettingsError.missing(
                .tokenFile, searched: [.option("--token-file"), .environment("CAPTURE_TOKEN_FILE"), .file(path: file, key: "tokenFile")])
        ) { try UploadSettings.resolve(url: "http://127.0.0.1:1/", tokenFile: nil, dataDirectory: directory, environment: [:]) }
    }

    @Test func theURLIsCheckedBeforeTheTokenFile() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for bad in ["ftp://127.0.0.1/", "127.0.0.1:8080", "https://"] {
            #expect(throws: UploadSettingsError.invalidURL(bad, origin: .option("--url"))) {
                try UploadSettings.resolve(url: bad, tokenFile: "/nonexistent", dataDirectory: directory, environment: [:])
            }
        }
    }

    @Test func aMalformedUploadJSONIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try uploadJSON(#"{"url": 42}"#)
        #expect(throws: UploadSettingsError.malformedFile(path: directory + "/upload.json")) {
            try UploadSettings.resolve(url: "http://x/", tokenFile: "/t", dataDirectory: directory, environment: [:])
        }
    }

    @Test func tokenFilesMustBePrivateAndHoldOneLine() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try TokenFile.read(token("ok", "  abc.def-ghi \n")) == BearerToken("abc.def-ghi"))
        let open = token("open", mode: 0o644)
        #expect(throws: UploadSettingsError.tokenFileExposed(path: open, mode: 0o644)) { try TokenFile.read(open) }
        let group = token("group", mode: 0o640)
        #expect(throws: UploadSettingsError.tokenFileExposed(path: group, mode: 0o640)) { try TokenFile.read(group) }
        for (name, text) in [("two", "a\nb\n"), ("spaced", "a b"), ("empty", "\n")] {
            let path = token(name, text)
            #expect(throws: UploadSettingsError.tokenFileMalformed(path: path)) { try TokenFile.read(path) }
        }
        let missing = directory + "/missing"
        #expect(throws: UploadSettingsError.tokenFileMissing(path: missing, reason: "No such file or directory")) {
            try TokenFile.read(missing)
        }
        // The descriptions name the file, never the token.
        let error = UploadSettingsError.tokenFileExposed(path: open, mode: 0o644)
        #expect(error.description == "the token file \(open) is readable by group or others (mode 644)")
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

    func resolve(_ options: [String] = [], environment: [String: String] = [:]) throws -> UploadSettings {
        try UploadSettings.resolve(
            url: "https://collector.example/api/v4", tokenFile: tokenPath, trustedOrigins: options, dataDirectory: directory,
            environment: environment)
    }

    @Test func noneByDefaultThenOptionsOverTheEnvironmentOverUploadJSON() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try resolve().trustedOrigins == nil)
        try #"{"trustedOrigins": ["https://a.example", "http://b.example:8080/x"]}"#.write(
            toFile: directory + "/upload.json", atomically: true, encoding: .utf8)
        var settings = try resolve()
        #expect(settings.trustedOrigins?.value == [URLOrigin("https://a.example:443")!, URLOrigin("http://b.example:8080")!])
        #expect(settings.trustedOrigins?.origin == .file(path: directory + "/upload.json", key: "trustedOrigins"))
        settings = try resolve(environment: ["CAPTURE_TRUSTED_ORIGINS": "https://c.example, https://d.example"])
        #expect(settings.trustedOrigins?.value == [URLOrigin("https://c.example")!, URLOrigin("https://d.example")!])
        #expect(settings.trustedOrigins?.origin == .environment("CAPTURE_TRUSTED_ORIGINS"))
        settings = try resolve(["https://e.example", "https://f.example:8443"], environment: ["CAPTURE_TRUSTED_ORIGINS": "https://c.example"])
        #expect(settings.trustedOrigins?.value == [URLOrigin("https://e.example")!, URLOrigin("https://f.example:8443")!])
        #expect(settings.trustedOrigins?.origin == .option("--trust-origin"))
    }

    @Test func aTrustedOriginThatIsNotAnHTTPURLIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: UploadSettingsError.invalidTrustedOrigin("ftp://x.example", origin: .option("--trust-origin"))) {
            try resolve(["ftp://x.example"])
        }
        #expect(throws: UploadSettingsError.invalidTrustedOrigin("nohost", origin: .environment("CAPTURE_TRUSTED_ORIGINS"))) {
            try resolve(environment: ["CAPTURE_TRUSTED_ORIGINS": "https://ok.example nohost"])
        }
    }
}
