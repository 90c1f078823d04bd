import CaptureCollector
import CaptureCore
import CaptureTransfer
import CaptureStorage
import CaptureUpload
import Foundation
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// A data directory with a store, removed when the value goes away.
final class Device: Sendable {
    let directory: String
    let store: Store

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-run-\(UUID().uuidString)").path
        store = try Store(directory: directory, durability: .relaxed)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A finished measurement with `fixes` fixes one second apart and ten accelerometer samples
    /// per second, recorded through the recording engine as the recorder does.
    func ride(fixes: Int, base: Int64 = 1_700_000_000_000, finished: Bool = true) throws -> Int64 {
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: base), sources: "test")
        for second in 0..<max(fixes, 1) {
            let t = base + Int64(second) * 1000
            for step in 0..<10 {
                engine.ingest(.motion(.accelerometer, MotionSample(timestamp: t + Int64(step) * 100, x: 0.1, y: 0, z: 9.81)))
            }
            if second < fixes {
                engine.ingest(
                    .fix(Fix(timestamp: t, latitude: 51.05 + Double(second) * 3e-5, longitude: 13.73, horizontalAccuracy: 5, speed: 4)))
            }
        }
        try store.commit(engine.takeFlush(), to: id)
        if finished { try store.commit(try engine.apply(.stop, at: base + Int64(max(fixes, 1)) * 1000), to: id) }
        return id
    }

    /// A file of `size` pseudo-random bytes in the data directory (the transport does not look inside).
    func synthetic(_ size: Int, seed: UInt64) throws -> String {
        let path = directory + "/synthetic-\(seed).bin"
        var random = SplitMix64(seed: seed)
        try Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// An in-process collector on a loopback port (HummingbirdTesting's live framework).
struct LiveCollector {
    static let token = "upload-run-token"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-run-collector-\(UUID().uuidString)").path

    /// Runs `body` with the collector's base URL while the collector serves.
    func serve(_ body: @Sendable (String) async throws -> Void) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let collector = try await Collector(.init(dataDirectory: directory, token: Self.token), logger: Logger(label: "upload-run-tests"))
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.live) { client in
            try await body("http://localhost:\(try #require(client.port))/")
        }
    }

    /// The lines of `ranges.log`: `<sid> <from>-<to>/<total> <status>` or `<sid> */<total> <status> …`.
    var ranges: [String] {
        ((try? String(contentsOfFile: directory + "/ranges.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The stored uploads' bytes, by measurement id.
    func stored() throws -> [String: Data] {
        let folder = directory + "/measurements"
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".json") {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            let id = (json as? [String: String])?["measurementId"] ?? "?"
            result[id] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name.replacingOccurrences(of: ".json", with: ".ccyf")))
        }
        return result
    }
}

/// Hands out the collector's token for the first `good` requests and a wrong one after, as a
/// token that is revoked in the middle of an upload would.
final class RevokedAfter: UploadAuthenticator {
    let good: Int
    let origin = "/test/token"
    private let calls = Mutex(0)

    init(_ good: Int) { self.good = good }

    func bearerToken() async throws -> BearerToken {
        let call = calls.withLock { calls in
            calls += 1
            return calls
        }
        return BearerToken(call <= good ? LiveCollector.token : "revoked")
    }
}

/// Remembers what the run reported.
final class Recorder: UploadRunObserver {
    let events = Mutex<[String]>([])

    func transferBegins(measurement: Int64, bytes: Int64) { events.withLock { $0.append("begin \(measurement)") } }
    func finished(_ result: UploadResult) { events.withLock { $0.append("\(result.measurement) \(result.outcome.rawValue)") } }
    var list: [String] { events.withLock { $0 } }
}

let fast = UploadStateMachine.RetryPolicy(initialDelay: 10, maximumDelay: 100, budget: 5_000)

/// Options for a run against an in-process collector: the `fast` policy counted on a
/// ``SleepOnlyClock``, so that its 5 s budget holds the back-offs alone. On a loaded machine
/// (load 8–10) one connection to the in-process collector took 10 s, which a budget on the wall
/// clock counted: "gave up after 1 attempt(s) in 10 s" (issue 46).
func fastOptions(chunkSize: Int64? = nil, file: String? = nil) -> UploadRun.Options {
    var options = UploadRun.Options(appVersion: "0.1.0", chunkSize: chunkSize, retryPolicy: fast, transferFileOverride: file)
    options.clock = SleepOnlyClock()
    return options
}

func uploadRun(
    _ device: Device, _ url: String,
    authenticator: any UploadAuthenticator = StaticToken(BearerToken(LiveCollector.token), origin: "/test/token"),
    chunkSize: Int64? = nil, file: String? = nil
) -> UploadRun {
    UploadRun(
        store: device.store, dataDirectory: device.directory, collectorURL: url, authenticator: authenticator,
        options: fastOptions(chunkSize: chunkSize, file: file))
}

@Suite struct UploadRunTests {
    @Test func uploadsWhatWaitsAndRecordsEachOutcomeInTheStore() async throws {
        let device = try Device()
        let ride = try device.ride(fixes: 5)
        let short = try device.ride(fixes: 1, base: 1_700_000_100_000)
        let open = try device.ride(fixes: 3, base: 1_700_000_200_000, finished: false)
        let collector = LiveCollector()
        try await collector.serve { url async throws in
            let observer = Recorder()
            let report = try await uploadRun(device, url).run(.waiting(includingSkipped: false), observer: observer)
            #expect(report.results.map(\.outcome) == [.uploaded, .skipped])
            #expect(report.results[0].bytes == (try device.store.transferFile(for: ride, directory: device.directory).size))
            #expect(report.results[1].reason == CollectorProtocol.tooFewLocations)
            #expect(observer.list == ["begin \(ride)", "\(ride) uploaded", "\(short) skipped"])
            #expect(throws: Never.self) { try report.check() }
            #expect(try device.store.upload(of: ride).status == .uploaded)
            #expect(try device.store.upload(of: short).status == .skipped)
            #expect(try device.store.upload(of: open).status == .pending)
            // The collector has exactly the store's transfer file.
            let cached = try device.store.transferFile(for: ride, directory: device.directory)
            #expect(try collector.stored() == [String(ride): try Data(contentsOf: URL(fileURLWithPath: cached.path))])

            // Nothing waits now; skipped ones come back only when asked for.
            #expect(try await uploadRun(device, url).run(.waiting(includingSkipped: false)).results.isEmpty)
            let again = try await uploadRun(device, url).run(.waiting(includingSkipped: true))
            #expect(again.results.map(\.measurement) == [short])
            // Named ids are reported whatever their state, in id order.
            let named = try await uploadRun(device, url).run(.measurements([99, open, ride]))
            #expect(named.results.map(\.outcome) == [.uploaded, .notFinished, .notFound])
            #expect(named.results[0].reason == "already uploaded")
            #expect(throws: UploadRunFailure.incomplete(missed: 1, of: 3)) { try named.check() }
            #expect(try collector.stored().count == 1)
        }
    }

    @Test func aRejectedTokenStopsTheRunAndKeepsTheSessionForAResume() async throws {
        let device = try Device()
        let first = try device.ride(fixes: 5)
        let second = try device.ride(fixes: 5, base: 1_700_000_100_000)
        let file = try device.synthetic(50_000, seed: 1)
        let collector = LiveCollector()
        try await collector.serve { url async throws in
            // The pre-request and the first chunk go through, then the token is refused.
            let report = try await uploadRun(device, url, authenticator: RevokedAfter(2), chunkSize: 10_000, file: file)
                .run(.waiting(includingSkipped: false))
            #expect(report.results.map(\.measurement) == [first], "the run goes no further than the 401")
            #expect(report.results.first?.outcome == .unauthorized)
            #expect(report.tokenRejected)
            #expect(throws: UploadRunFailure.tokenRejected(
                origin: "/test/token", remedy: .renewToken(file: "/test/token"))) { try report.check() }
            let kept = try device.store.upload(of: first)
            #expect(kept.status == .uploading)
            #expect(kept.acknowledged == 10_000)
            let session = try #require(kept.sessionURL)
            #expect(try device.store.upload(of: second).status == .pending)

            // With a good token, --resume asks the collector where it stands and continues there.
            let resumed = try await uploadRun(device, url, chunkSize: 10_000, file: file).run(.interrupted(among: nil))
            #expect(resumed.results.map(\.outcome) == [.uploaded])
            let sid = try #require(session.split(separator: "(").last?.split(separator: ")").first.map(String.init))
            let lines = collector.ranges.filter { $0.hasPrefix(sid) }
            #expect(lines.contains("\(sid) */50000 308 bytes=0-9999"), "\(collector.ranges)")
            #expect(lines.filter { $0.contains(" 0-9999/") }.count == 1, "byte 0 was sent once: \(lines)")
            #expect(lines.last == "\(sid) 40000-49999/50000 201", "\(lines)")
            #expect(try collector.stored()[String(first)] == (try Data(contentsOf: URL(fileURLWithPath: file))))
            #expect(try device.store.upload(of: first).status == .uploaded)
        }
    }

    @Test func aStoredSessionIsResumedOnlyForTheSameBytes() async throws {
        let device = try Device()
        let id = try device.ride(fixes: 5)
        let file = try device.synthetic(30_000, seed: 2)
        let other = try device.synthetic(30_000, seed: 3)
        let collector = LiveCollector()
        try await collector.serve { url async throws in
            _ = try await uploadRun(device, url, authenticator: RevokedAfter(2), chunkSize: 10_000, file: file)
                .run(.measurements([id]))
            let interrupted = try device.store.upload(of: id)
            let old = try #require(interrupted.sessionURL)
            #expect(interrupted.fileSHA256 == (try TransferFile(hashing: file)).sha256)

            // Other bytes of the same size: the old session is void, a new one starts from 0.
            let report = try await uploadRun(device, url, chunkSize: 10_000, file: other).run(.measurements([id]))
            #expect(report.results.map(\.outcome) == [.uploaded])
            let oldSID = try #require(old.split(separator: "(").last?.split(separator: ")").first.map(String.init))
            #expect(!collector.ranges.contains { $0.contains("*/") }, "no status query: \(collector.ranges)")
            #expect(collector.ranges.filter { $0.hasPrefix(oldSID) }.count == 1, "\(collector.ranges)")
            #expect(try collector.stored()[String(id)] == (try Data(contentsOf: URL(fileURLWithPath: other))))
            let record = try device.store.upload(of: id)
            let otherHash = try TransferFile(hashing: other).sha256
            #expect(record.status == .uploaded && record.fileSHA256 == otherHash)
        }
    }

    @Test func anUnreadableOverrideThrowsWithoutTouchingTheStore() async throws {
        let device = try Device()
        let id = try device.ride(fixes: 5)
        let collector = LiveCollector()
        try await collector.serve { url async throws in
            let missing = device.directory + "/nonexistent.bin"
            await #expect(throws: TransferError.cannotRead(path: missing, reason: "No such file or directory")) {
                try await uploadRun(device, url, file: missing).run(.measurements([id]))
            }
            #expect(try device.store.upload(of: id).status == .pending)
            #expect(collector.ranges.isEmpty)
        }
    }

    @Test func aFIFOGivenAsTheFileIsRefusedWithoutWaitingForAWriter() async throws {
        let device = try Device()
        let id = try device.ride(fixes: 5)
        let fifo = device.directory + "/upload.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let collector = LiveCollector()
        try await collector.serve { url async throws in
            // Nobody writes to it: opening it to read would block for good.
            await #expect(throws: TransferError.cannotRead(path: fifo, reason: "not a regular file")) {
                try await uploadRun(device, url, file: fifo).run(.measurements([id]))
            }
            #expect(try device.store.upload(of: id).status == .pending)
            #expect(collector.ranges.isEmpty)
        }
    }
}

@Suite struct UploadResultTests {
    @Test func encodesWithTheKeysAndValuesOfCaptureUploadJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let results = [
            UploadResult(measurement: 1, outcome: .uploaded, bytes: 10, seconds: 0.5),
            UploadResult(measurement: 2, outcome: .notFinished, reason: "still open"),
        ]
        let text = String(decoding: try encoder.encode(results), as: UTF8.self)
        #expect(text == #"[{"bytes":10,"measurement":1,"result":"uploaded","seconds":0.5},{"measurement":2,"reason":"still open","result":"notFinished"}]"#)
        #expect(try JSONDecoder().decode([UploadResult].self, from: Data(text.utf8)) == results)
        #expect(UploadOutcome.allCases.map(\.rawValue) == ["uploaded", "skipped", "failed", "unauthorized", "notFinished", "notFound"])
        #expect(UploadOutcome.allCases.filter(\.isMissed) == [.failed, .notFound])
    }

    @Test func theTokenIsNeverInADescription() {
        let token = BearerToken("s3cret")
        #expect("\(token)" == "<redacted>" && String(reflecting: token) == "<redacted>")
        #expect(token.authorization == "Bearer s3cret")
    }
}
