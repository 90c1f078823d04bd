import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import CaptureCollector

/// A swift-log handler that keeps every line in memory.
final class MemoryLog: Sendable {
    struct Handler: LogHandler {
        let log: MemoryLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let level = event.level
            let message = event.message
            log.lines.withLock { $0.append((level, "\(message)")) }
        }
    }

    let lines = Mutex<[(level: Logger.Level, text: String)]>([])

    /// A logger at `level` writing here.
    func logger(_ level: Logger.Level) -> Logger {
        var logger = Logger(label: "collector-log-tests") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// The lines logged at info level or above.
    var info: [String] { lines.withLock { $0.filter { $0.level >= .info }.map(\.text) } }
    /// Everything, for checking that a secret never appears.
    var all: String { lines.withLock { $0.map(\.text).joined(separator: "\n") } }
}

@Suite struct CollectorLogTests {
    @Test func eachRequestIsOneInfoLineWithItsFieldsAndNeverTheToken() async throws {
        let log = MemoryLog()
        let collector = try await CollectorUnderTest(logger: log.logger(.trace))
        let device = metadata()["deviceId"]!
        try await collector.test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 0-4/10", body: Array(bytes.prefix(5))).status.code == 308)
            #expect(try await client.put(path, range: "bytes 5-9/10", body: Array(bytes.suffix(5))).status == .created)
            #expect(try await client.preRequest(token: "wrong-secret").status == .unauthorized)
            #expect(try await client.execute(uri: "/elsewhere", method: .get).status == .notFound)
        }
        // ranges.log: `<sid> <range> <status>`.
        let sid = collector.ranges.first.map { String($0.prefix { $0 != " " }) } ?? "?"
        let lines = log.info
        #expect(lines.count == 5, "one line per request: \(lines)")
        guard lines.count == 5 else { return }
        #expect(lines[0].hasPrefix("POST /measurements 200 measurement=\(device)/7 session=\(sid) bytes="))
        #expect(lines[1] == "PUT /measurements/(\(sid))/ 308 measurement=\(device)/7 session=\(sid) bytes=5")
        #expect(lines[2] == "PUT /measurements/(\(sid))/ 201 measurement=\(device)/7 session=\(sid) bytes=5")
        #expect(lines[3].hasPrefix("POST /measurements 401 measurement=- session=- bytes="), "\(lines[3])")
        #expect(lines[4] == "GET /elsewhere 404 measurement=- session=- bytes=0")
        for secret in [CollectorUnderTest.token, "wrong-secret", "Bearer", "uthorization"] {
            #expect(!log.all.contains(secret), "the log shows \(secret)")
        }
    }

    @Test func warningLevelLogsNoRequests() async throws {
        let log = MemoryLog()
        let collector = try await CollectorUnderTest(logger: log.logger(.warning))
        try await collector.test { client async throws in
            let path = try await client.openSession()
            #expect(try await client.put(path, range: "bytes 0-9/10", body: bytes).status == .created)
            #expect(try await client.preRequest(token: nil).status == .unauthorized)
        }
        #expect(log.info.isEmpty, "\(log.info)")
    }

    @Test func aControlCharacterFromTheClientDoesNotBreakTheLine() {
        #expect(RequestLogMiddleware.clean("a\nb\u{1b}[2J") == "a?b?[2J")
    }
}
