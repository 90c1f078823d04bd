import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The collector's answers to requests the uploader never sends, checked with curl (skipped
/// where curl is missing).
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
struct CollectorEndToEndTests {
    let metadata: [(String, String)] = [
        ("deviceId", "0b3c2d9e-1111-4a4a-8888-aaaaaaaaaaaa"), ("measurementId", "5"), ("deviceType", "x"),
        ("osVersion", "Linux"), ("appVersion", "1"), ("length", "1.0"), ("locationCount", "2"),
        ("startLocLat", "1.0"), ("startLocLon", "1.0"), ("startLocTS", "1"), ("endLocLat", "1.0"),
        ("endLocLon", "1.0"), ("endLocTS", "2"), ("modality", "BICYCLE"), ("formatVersion", "3"),
    ]

    var json: String { "{" + metadata.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}" }

    /// Runs curl; returns the status code and the response headers.
    func curl(_ arguments: [String]) throws -> (status: Int, headers: String) {
        let process = try Subprocess(["-s", "-o", "/dev/null", "-D", "-", "-w", "%{http_code}"] + arguments, executable: "/usr/bin/curl")
        #expect(process.wait() == 0)
        let output = process.stdout
        return (Int(output.suffix(3)) ?? 0, output)
    }

    func token(_ collector: CollectorProcess) throws -> String {
        try String(contentsOfFile: collector.tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func refusalsHaveTheProtocolsStatusCodes() throws {
        let collector = try CollectorProcess()
        let auth = "Authorization: Bearer \(try token(collector))"
        let post = ["-X", "POST", collector.url + "measurements", "-H", "Content-Type: application/json; charset=UTF-8"]
        #expect(try curl(post + ["-H", "x-upload-content-length: 10", "--data", json]).status == 401)
        #expect(try curl(post + ["-H", "Authorization: Bearer nope", "-H", "x-upload-content-length: 10", "--data", json]).status == 401)
        #expect(try curl(post + ["-H", auth, "--data", json]).status == 422)
        #expect(try curl(post + ["-H", auth, "-H", "x-upload-content-length: 99999999999", "--data", json]).status == 422)
        #expect(try curl(post + ["-H", auth, "-H", "x-upload-content-length: 10", "--data", String(repeating: " ", count: 1100) + json]).status == 413)
        #expect(try curl(post + ["-H", auth, "-H", "x-upload-content-length: 10", "--data", "{\"deviceId\":\"x\"}"]).status == 422)
        #expect(try curl(["-X", "POST", collector.url + "measurements", "-H", auth, "-H", "Content-Type: text/plain", "-H", "x-upload-content-length: 10", "--data", json]).status == 415)
        let tooFew = json.replacingOccurrences(of: "\"locationCount\":\"2\"", with: "\"locationCount\":\"1\"")
        #expect(try curl(post + ["-H", auth, "-H", "x-upload-content-length: 10", "--data", tooFew]).status == 412)

        let opened = try curl(post + ["-H", auth, "-H", "x-upload-content-length: 10", "--data", json])
        #expect(opened.status == 200)
        let location = try #require(opened.headers.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("location:") })
            .dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
        #expect(location.hasPrefix(collector.url + "measurements/(") && location.hasSuffix(")/"))
        let put = ["-X", "PUT", location, "-H", auth, "-H", "Content-Type: application/octet-stream"]
            + metadata.flatMap { ["-H", "\($0.0): \($0.1)"] }
        #expect(try curl(put + ["-H", "Content-Range: bytes */10", "-H", "Content-Length: 0"]).status == 308)
        #expect(try curl(put + ["-H", "Content-Range: bytes */*", "-H", "Content-Length: 0"]).status == 422)
        #expect(try curl(put + ["-H", "Content-Range: bytes 0-3/10", "--data-binary", "abc"]).status == 422)
        #expect(try curl(put + ["-H", "Content-Range: bytes 4-9/10", "--data-binary", "efghij"]).status == 404)
        #expect(try curl(put + ["-H", "Content-Range: bytes 0-3/10", "-H", "Transfer-Encoding: chunked", "--data-binary", "abcd"]).status == 422)
        let chunk = try curl(put + ["-H", "Content-Range: bytes 0-3/10", "--data-binary", "abcd"])
        #expect(chunk.status == 308 && chunk.headers.contains("Range: bytes=0-3"))
        #expect(try curl(put + ["-H", "Content-Range: bytes 2-7/10", "--data-binary", "cdefgh"]).status == 308)
        var wrong = put
        wrong[2] = String(location.dropLast())
        #expect(try curl(wrong + ["-H", "Content-Range: bytes */10", "-H", "Content-Length: 0"]).status == 404)
        #expect(try curl(put + ["-H", "Content-Range: bytes 4-9/10", "--data-binary", "efghij"]).status == 201)
        #expect(try curl(put + ["-H", "Content-Range: bytes */10", "-H", "Content-Length: 0"]).status == 200)
        #expect(try curl(post + ["-H", auth, "-H", "x-upload-content-length: 10", "--data", json]).status == 409)
        #expect(try collector.stored().first?.bytes == Data("abcdefghij".utf8))
    }

    /// A PUT whose client went away without the collector hearing of it (a link that went down)
    /// still holds its session. A status query then says what has arrived, at once, and a new
    /// chunk is told to come back (503, Retry-After), rather than 404, which would send the
    /// client back to byte 0. Once the old connection ends, the upload resumes where it broke.
    @Test func aPutItsClientGaveUpOnNeitherLosesNorBlocksTheSession() throws {
        let collector = try CollectorProcess()
        let auth = "Authorization: Bearer \(try token(collector))"
        let opened = try curl(
            ["-X", "POST", collector.url + "measurements", "-H", "Content-Type: application/json; charset=UTF-8",
             "-H", auth, "-H", "x-upload-content-length: 10", "--data", json])
        let location = try #require(opened.headers.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("location:") })
            .dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
        let put = ["-X", "PUT", location, "-H", auth, "-H", "Content-Type: application/octet-stream"]
            + metadata.flatMap { ["-H", "\($0.0): \($0.1)"] }
        // The stalled PUT: the whole chunk announced, four of its ten bytes sent, then silence.
        let fd = try #require(Loopback.connect(port: UInt16(collector.port)))
        var stalledOpen = true
        defer { if stalledOpen { close(fd) } }
        let path = try #require(URL(string: location)).path + "/"
        let head = "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: 10\r\nContent-Range: bytes 0-9/10\r\n" + metadata.map { "\($0.0): \($0.1)\r\n" }.joined()
            + "\r\nabcd"
        #expect(head.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } == head.utf8.count)

        var query = try curl(put + ["-H", "Content-Range: bytes */10", "-H", "Content-Length: 0"])
        for _ in 0..<50 where !query.headers.contains("Range: bytes=0-3") {
            usleep(100_000)
            query = try curl(put + ["-H", "Content-Range: bytes */10", "-H", "Content-Length: 0"])
        }
        #expect(query.status == 308 && query.headers.contains("Range: bytes=0-3"), "\(query.headers)")
        let busy = try curl(put + ["-H", "Content-Range: bytes 4-9/10", "--data-binary", "efghij"])
        #expect(busy.status == 503, "\(busy.headers)")
        #expect(busy.headers.lowercased().contains("retry-after: 5"))

        close(fd)
        stalledOpen = false
        var resumed = try curl(put + ["-H", "Content-Range: bytes 4-9/10", "--data-binary", "efghij"])
        for _ in 0..<3 where resumed.status == 503 {
            resumed = try curl(put + ["-H", "Content-Range: bytes 4-9/10", "--data-binary", "efghij"])
        }
        #expect(resumed.status == 201, "\(resumed.headers)")
        #expect(try collector.stored().first?.bytes == Data("abcdefghij".utf8))
    }

    @Test func expiredSessionsAreForgotten() throws {
        let collector = try CollectorProcess(["--session-expiry", "0.3"])
        let auth = "Authorization: Bearer \(try token(collector))"
        let opened = try curl([
            "-X", "POST", collector.url + "measurements", "-H", auth, "-H", "Content-Type: application/json; charset=UTF-8",
            "-H", "x-upload-content-length: 10", "--data", json,
        ])
        let location = try #require(opened.headers.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("location:") })
            .dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
        usleep(600_000)
        let put = ["-X", "PUT", location, "-H", auth, "-H", "Content-Type: application/octet-stream"]
            + metadata.flatMap { ["-H", "\($0.0): \($0.1)"] }
        #expect(try curl(put + ["-H", "Content-Range: bytes */10", "-H", "Content-Length: 0"]).status == 404)
    }
}
