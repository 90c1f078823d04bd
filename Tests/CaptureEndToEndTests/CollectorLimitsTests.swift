import CaptureTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// The collector under abuse (issue 15.6): header and session limits answer their documented
/// codes, idle connections are closed, and a thousand idle or trickling connections (slowloris)
/// do not keep a real upload from completing.
@Suite(.serialized) struct CollectorLimitsTests {
    let metadata = CollectorEndToEndTests().metadata

    func curl(_ arguments: [String]) throws -> (status: Int, headers: String) {
        try CollectorEndToEndTests().curl(arguments)
    }

    /// Durations too large for whole milliseconds in an Int64 are refused as bad arguments
    /// (64) rather than trapping when the collector starts.
    @Test func absurdDurationsAreRefusedNotATrap() throws {
        for arguments in [["--idle-timeout", "1e300"], ["--session-expiry", "inf"], ["--idle-timeout", "-1"]] {
            let run = try Program.run(BuiltProducts.path("capture-collector"), ["--token", "t", "--port", "0", "--data-dir", NSTemporaryDirectory() + "/unused-collector"] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(arguments[0]), "\(run.stderr)")
        }
    }

    func preRequest(_ collector: CollectorProcess, measurement: Int, extra: [String] = []) throws -> (status: Int, headers: String) {
        let token = try CollectorEndToEndTests().token(collector)
        var fields = metadata
        fields[1] = ("measurementId", String(measurement))
        let json = "{" + fields.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
        return try curl(
            ["-X", "POST", collector.url + "measurements", "-H", "Content-Type: application/json; charset=UTF-8",
             "-H", "Authorization: Bearer \(token)", "-H", "x-upload-content-length: 10", "--data", json] + extra)
    }

    @Test func headerAndSessionLimitsAnswerTheirCodes() throws {
        _ = Program.require("curl", package: "curl")
        let collector = try CollectorProcess(["--max-sessions", "2", "--max-header-bytes", "4096"])
        // A header field over the limit: 400, as a request the parser refuses.
        let big = try preRequest(collector, measurement: 1, extra: ["-H", "X-Padding: " + String(repeating: "a", count: 5000)])
        #expect(big.status == 400, "\(big.headers)")
        // Two sessions open; the third pre-request is told to come back later.
        #expect(try preRequest(collector, measurement: 1).status == 200)
        #expect(try preRequest(collector, measurement: 2).status == 200)
        let third = try preRequest(collector, measurement: 3)
        #expect(third.status == 429, "\(third.headers)")
        #expect(third.headers.lowercased().contains("retry-after: 30"))
        // A header list just under the limit is read.
        #expect(try preRequest(collector, measurement: 4, extra: ["-H", "X-Padding: " + String(repeating: "a", count: 2000)]).status == 429)
    }

    @Test func anIdleConnectionIsClosed() throws {
        let collector = try CollectorProcess(["--idle-timeout", "1"])
        let fd = try #require(Loopback.connect(port: UInt16(collector.port)))
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        // The collector closes it: recv sees the end (0), not its own 5-s timeout (-1, EAGAIN).
        #expect(recv(fd, &byte, 1, 0) == 0)
    }

    /// A thousand connections that send a partial request and then a byte now and then, held
    /// open while `capture upload` sends a ride: the upload completes, and the collector still
    /// answers afterwards.
    @Test func aThousandSlowConnectionsDoNotStopARealUpload() throws {
        let collector = try CollectorProcess()
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for index in 0..<1000 {
            guard let fd = Loopback.connect(port: UInt16(collector.port)) else { break }
            sockets.append(fd)
            // Half of them start a request and never finish its head.
            if index % 2 == 0 {
                let head = "PUT /measurements/(0123456789abcdefghijklmnopqrstuv)/ HTTP/1.1\r\nHost: x\r\n"
                _ = head.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            }
        }
        #expect(sockets.count == 1000, "only \(sockets.count) connections")
        // The trickle: one more header byte on every started request, every 200 ms.
        let stop = Atomic(false)
        let trickling = Thread { [sockets] in
            while !stop.load(ordering: .relaxed) {
                for fd in sockets.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
                    var byte = UInt8(ascii: "X")
                    _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                usleep(200_000)
            }
        }
        trickling.start()
        defer { stop.store(true, ordering: .relaxed) }

        let cli = CLI()
        try FileManager.default.createDirectory(atPath: cli.dataDirectory, withIntermediateDirectories: true)
        let trace = cli.dataDirectory + "/ride.trace"
        try shortTrace(fixes: 30).write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(try cli.run(["replay", trace]).status == 0)
        // Within its retry budget, or it fails.
        let upload = try cli.run(["upload", "--url", collector.url, "--token-file", collector.tokenFile, "--retry-budget", "30"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try collector.stored().count == 1)
        // Still there for everyone else.
        #expect(Loopback.canConnect(port: UInt16(collector.port)))
    }
}
