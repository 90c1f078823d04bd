import CaptureTestSupport
import Foundation
import Glibc
import Testing

// Hostile collectors: rows of docs/bad-input.md (the shared helpers are in BadInputTests.swift).

@Suite struct HostileCollectorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var replies: [HostileCollector.Reply]
        var status: Int32
        /// In the measurement's result line on stdout.
        var result: String
        /// The stored upload state afterwards.
        var state: String
        var testDescription: String { name }
    }

    static let session = "Location: http://127.0.0.1:1/never-used"

    static let rows: [Row] = {
        typealias H = HostileCollector
        let open = { (port: String) in H.answer(201, [port]) }
        return [
            Row(name: "401", replies: [H.answer(401)], status: 77, result: "unauthorized (HTTP 401)", state: "uploading"),
            // 403 is retried within the budget (§2.10: the collector answers it while unavailable).
            Row(name: "403", replies: [H.answer(403, body: "forbidden")], status: 75, result: "failed (gave up after ", state: "failed"),
            Row(name: "409", replies: [H.answer(409)], status: 0, result: "uploaded (the collector already had it)", state: "uploaded"),
            Row(name: "412", replies: [H.answer(412, body: "too short")], status: 0, result: "skipped (too short)", state: "skipped"),
            Row(name: "413", replies: [H.answer(413)], status: 75, result: "failed (pre-request: HTTP 413)", state: "failed"),
            Row(name: "422", replies: [H.answer(422, body: "bad metadata")], status: 75, result: "failed (pre-request: HTTP 422: bad metadata)", state: "failed"),
            Row(name: "500 forever", replies: [H.answer(500)], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "garbage status line", replies: [.raw("HTTP/1.1 abc\r\n\r\n")], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "not HTTP at all", replies: [.raw("SSH-2.0-OpenSSH_9.6\r\n")], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "connection reset", replies: [.reset], status: 75, result: "failed (gave up after", state: "failed"),
            Row(name: "no answer", replies: [.silent], status: 75, result: "failed (gave up after", state: "failed"),
            Row(
                name: "huge headers", replies: [H.answer(201, ["X-Junk: " + String(repeating: "j", count: 300_000)])], status: 75,
                result: "failed (gave up after", state: "failed"),
            Row(
                name: "201 without Location", replies: [H.answer(201)], status: 75,
                result: "failed (the collector opened a session without a usable Location header", state: "failed"),
            Row(
                name: "Location not a URL", replies: [H.answer(201, ["Location: ftp://127.0.0.1/x"])], status: 75,
                result: "failed (the collector opened a session without a usable Location header", state: "failed"),
            Row(
                name: "redirect", replies: [H.answer(301, ["Location: http://127.0.0.1:1/elsewhere"])], status: 75,
                result: "failed (pre-request: HTTP 301)", state: "failed"),
            Row(
                name: "308 with an unreadable Range, forever", replies: [open("Location: /api/v4/s/1"), H.answer(308, ["Range: bytes=abc"])],
                status: 75, result: "failed (gave up after", state: "failed"),
            Row(
                name: "308 with a Range beyond the file", replies: [open("Location: /api/v4/s/1"), H.answer(308, ["Range: bytes=0-99999999"])],
                status: 75, result: "failed (the collector claims 100000000 bytes of a", state: "failed"),
            Row(
                name: "relative Location", replies: [open("Location: /api/v4/s/1"), H.answer(201)], status: 0, result: "uploaded",
                state: "uploaded"),
            Row(
                name: "terminal escapes in the reason", replies: [H.answer(418, body: "\u{1B}[2J\u{1B}[31mgo\r\naway\u{7}")], status: 75,
                result: "failed (pre-request: HTTP 418: [2J [31mgo away)", state: "failed"),
        ]
    }()

    @Test(arguments: rows)
    func hostileAnswerEndsTheUploadCleanly(_ row: Row) throws {
        let server = try HostileCollector(row.replies)
        defer { server.stop() }
        let cli = CLI()
        let trace = scratch("ride.trace")
        defer { unlink(trace) }
        try shortTrace(fixes: 5).write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(try cli.run(["replay", trace]).status == 0)
        let token = scratch("token")
        defer { unlink(token) }
        #expect(FileManager.default.createFile(atPath: token, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600]))
        let result = try cli.run(["upload", "--url", server.url, "--token-file", token, "--retry-budget", "1"])
        #expect(result.stdout.hasPrefix("measurement 1: \(row.result)"), "\(row.name): \(result.stdout)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("secret"), "\(row.name)")
        if row.status == 0 {
            #expect(result.status == 0, "\(row.name): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(row.name): \(result.stderr)")
        } else {
            let message = row.status == 77 ? "were refused: renew the token in" : "1 of 1 measurement(s) not uploaded"
            // Each retry is a line of its own before the refusal (no terminal here: issue 32).
            var refusal = result
            refusal.stderr = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !($0.hasPrefix("upload: measurement ") && $0.contains(": retrying in ")) }.joined(separator: "\n")
            expectRefusal(refusal, row.status, message, row.name)
        }
        let upload = try cli.json(["show", "1"])["upload"] as? [String: Any] ?? [:]
        #expect(upload["status"] as? String == row.state, "\(row.name): \(upload)")
        #expect(!server.requests.isEmpty, "\(row.name): no request reached the server")
        if row.name == "relative Location" { #expect(server.requests.last?.hasPrefix("PUT /api/v4/s/1 ") == true, "\(server.requests)") }
    }
}
