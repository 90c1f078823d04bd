import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The bearer token goes only to the configured collector's origin: a collector (or whoever
/// answers in its place) cannot send it elsewhere with a session `Location`.
@Suite struct TokenOriginTests {
    typealias H = HostileCollector

    /// A finished measurement in `cli`'s data directory and a token file; returns the token's path.
    func prepare(_ cli: CLI) throws -> String {
        let trace = scratch("ride.trace")
        defer { unlink(trace) }
        try shortTrace(fixes: 5).write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(try cli.run(["replay", trace]).status == 0)
        let token = scratch("token")
        #expect(FileManager.default.createFile(atPath: token, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600]))
        return token
    }

    @Test func aSessionOnAnotherOriginIsRefusedAndNeverSeesTheToken() throws {
        // The other origin: another port on the loopback address.
        let elsewhere = try HostileCollector([H.answer(201)])
        defer { elsewhere.stop() }
        let collector = try HostileCollector([H.answer(201, ["Location: http://127.0.0.1:\(elsewhere.port)/api/v4/s/1"])])
        defer { collector.stop() }
        let cli = CLI()
        let token = try prepare(cli)
        defer { unlink(token) }

        let refused = try cli.run(["upload", "--url", collector.url, "--token-file", token, "--retry-budget", "1"])
        expectRefusal(refused, 75, "1 of 1 measurement(s) not uploaded", "untrusted origin")
        #expect(
            refused.stdout.hasPrefix(
                "measurement 1: failed (the collector's session Location is on another origin (http://127.0.0.1:\(elsewhere.port)) "
                    + "than the collector (http://127.0.0.1:\(collector.port)), one not trusted with the token; nothing was sent there)"),
            "\(refused.stdout)")
        #expect(elsewhere.requestHeads.isEmpty, "\(elsewhere.requestHeads)")
        #expect(!elsewhere.requestHeads.contains { $0.lowercased().contains("authorization:") })
        // The collector itself was sent the token (so the check above can fail).
        #expect(collector.requestHeads.first?.contains("Authorization: Bearer secret") == true, "\(collector.requestHeads)")
        let upload = try cli.json(["show", "1"])["upload"] as? [String: Any] ?? [:]
        #expect(upload["status"] as? String == "failed", "\(upload)")

        // Trusted explicitly, the same session is used and gets the token.
        let trusted = try cli.run([
            "upload", "--url", collector.url, "--token-file", token, "--retry-budget", "1",
            "--trust-origin", "http://127.0.0.1:\(elsewhere.port)",
        ])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stdout.hasPrefix("measurement 1: uploaded"), "\(trusted.stdout)")
        #expect(elsewhere.requests.first?.hasPrefix("PUT /api/v4/s/1 ") == true, "\(elsewhere.requests)")
        #expect(elsewhere.requestHeads.first?.contains("Authorization: Bearer secret") == true, "\(elsewhere.requestHeads)")
    }

    @Test func aTrustedOriginThatIsNotAURLIsABadArgument() throws {
        let cli = CLI()
        let result = try cli.run([
            "upload", "--url", "http://127.0.0.1:1/api/v4", "--token-file", "/nonexistent", "--trust-origin", "sessions.example",
        ])
        expectRefusal(
            result, 64,
            "capture: the trusted origin 'sessions.example' from --trust-origin is not an http or https URL, such as https://sessions.example.com",
            "bad --trust-origin")
    }
}
