import CaptureUpload
import Foundation
import Testing

@Suite struct TokenFileTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-file-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func token(_ name: String, _ text: String = "secret\n", mode: Int = 0o600) -> String {
        let path = directory + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        return path
    }

    @Test func tokenFilesMustBePrivateAndHoldOneLine() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try TokenFile.read(token("ok", "  abc.def-ghi \n")) == BearerToken("abc.def-ghi"))
        let open = token("open", mode: 0o644)
        #expect(throws: TokenFileError.exposed(path: open, mode: 0o644)) { try TokenFile.read(open) }
        let group = token("group", mode: 0o640)
        #expect(throws: TokenFileError.exposed(path: group, mode: 0o640)) { try TokenFile.read(group) }
        for (name, text) in [("two", "a\nb\n"), ("spaced", "a b"), ("empty", "\n")] {
            let path = token(name, text)
            #expect(throws: TokenFileError.malformed(path: path)) { try TokenFile.read(path) }
        }
        let missing = directory + "/missing"
        #expect(throws: TokenFileError.missing(path: missing, reason: "No such file or directory")) {
            try TokenFile.read(missing)
        }
        // The descriptions name the file, never the token.
        let error = TokenFileError.exposed(path: open, mode: 0o644)
        #expect(error.description == "the token file \(open) is readable by group or others (mode 644)")
    }

    @Test func theTokenFileIsTheStaticTokensOrigin() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = token("a", "token-a")
        let settings = UploadSettings(collectorURL: "https://collector.example/api/v4", credentials: .tokenFile(path: path, try TokenFile.read(path)))
        #expect(settings.authenticator.origin == path)
        #expect(settings.trustedOrigins.isEmpty)
    }
}
