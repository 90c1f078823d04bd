import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A `capture-collector` on 127.0.0.1 with an ephemeral port and its own data directory,
/// stopped (SIGTERM, then SIGKILL) by pid when the value goes away.
final class CollectorProcess {
    static let executable = BuiltProducts.path("capture-collector")

    let directory: String
    let tokenFile: String
    let process: Subprocess
    let port: Int

    /// - Parameters:
    ///   - port: a port to listen on (0: an ephemeral one).
    ///   - token: the token to accept (default: a new random one).
    ///   - authentication: options instead of `--token-file` (`--issuer`, `--jwks`); the token
    ///     file is written all the same.
    ///   - environment: `NAME=VALUE`s to run it with (through env(1)), such as libfaketime's.
    init(
        _ arguments: [String] = [], port: Int = 0, token: String? = nil, authentication: [String]? = nil,
        environment: [String] = []
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        tokenFile = directory + ".token"
        _ = FileManager.default.createFile(
            atPath: tokenFile, contents: Data((token ?? "test-token-\(UUID().uuidString)").utf8 + [0x0A]),
            attributes: [.posixPermissions: 0o600])
        let options = ["--port", String(port), "--data-dir", directory + "/data"] + (authentication ?? ["--token-file", tokenFile])
            + arguments
        process =
            environment.isEmpty
            ? try Subprocess(options, executable: Self.executable)
            : try Subprocess(environment + IssuerDevice.shell + [Self.executable] + options, executable: "/usr/bin/env")
        var port: Int?
        for _ in 0..<400 where port == nil {
            port = process.stdout.split(separator: "\n").first.flatMap { Int($0) }
            if port == nil { usleep(25_000) }
        }
        guard let port else {
            throw POSIXError(.ETIMEDOUT, userInfo: [NSLocalizedDescriptionKey: "collector did not start: \(process.stderr)"])
        }
        self.port = port
    }

    deinit {
        // A graceful stop first; SIGKILL if it takes more than 3 s. The child is reaped either
        // way, so its pid is never signalled after it could be reused.
        process.stop(graceSeconds: 3)
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: tokenFile)
    }

    var url: String { "http://127.0.0.1:\(port)/" }

    /// The stored uploads: metadata by session id, and the bytes.
    func stored() throws -> [(metadata: [String: String], bytes: Data)] {
        let dir = directory + "/data/measurements"
        return try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }.sorted().map {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0)))
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0.replacingOccurrences(of: ".json", with: ".ccyf")))
            return (json as? [String: String] ?? [:], data)
        }
    }

    /// The lines of ranges.log.
    var ranges: [String] {
        ((try? String(contentsOfFile: directory + "/data/ranges.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Bytes received so far for open sessions.
    var partialBytes: Int {
        let dir = directory + "/data/partial"
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: dir + "/" + $1)[.size] as? Int) ?? 0)
        }
    }
}

/// A short ride: `fixes` fixes one second apart with a few motion samples, as a trace.
func shortTrace(fixes: Int, start: Int64 = 1_781_424_000_000) -> String {
    var lines = ["#capture-trace v1", "start \(start) BICYCLE"]
    for second in 0..<fixes {
        let t = start + Int64(second) * 1000
        for step in 0..<5 {
            lines.append("acc \(t + Int64(step) * 200) 0.1 0.0 9.81")
        }
        lines.append(String(format: "fix %lld %.7f %.7f 120.0 5.0 7.0 4.00 90.0", t, 51.05 + Double(second) * 0.00003, 13.73))
    }
    lines.append("stop \(start + Int64(max(fixes, 1)) * 1000)")
    return lines.joined(separator: "\n") + "\n"
}

@Suite(.serialized) struct UploadEndToEndTests {
    let cli = CLI()

    func replay(fixes: Int = 5) throws -> Int64 {
        let path = cli.dataDirectory + "-\(UUID().uuidString).trace"
        try FileManager.default.createDirectory(atPath: cli.dataDirectory, withIntermediateDirectories: true)
        try shortTrace(fixes: fixes).write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let result = try cli.run(["replay", path])
        #expect(result.status == 0, "\(result.stderr)")
        return Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A synthetic transfer file of `size` random bytes (the transport does not look inside).
    func synthetic(_ size: Int) throws -> String {
        let path = cli.dataDirectory + "-\(UUID().uuidString).bin"
        var state = UInt64.random(in: 1...UInt64.max)
        var bytes = [UInt8](repeating: 0, count: size)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func upload(_ collector: CollectorProcess, _ extra: [String]) throws -> CLI.Result {
        try cli.run(["upload", "--url", collector.url, "--token-file", collector.tokenFile, "--retry-budget", "20"] + extra)
    }

    func uploadState(_ id: Int64) throws -> [String: Any] {
        try cli.json(["show", String(id)])["upload"] as? [String: Any] ?? [:]
    }

    @Test func normalUploadStoresTheExactBytesWithMetadata() throws {
        let collector = try CollectorProcess()
        let id = try replay()
        let file = try synthetic(300_000)
        defer { unlink(file) }
        let result = try upload(collector, [String(id), "--transfer-file", file, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try collector.stored()
        try #require(stored.count == 1)
        #expect(stored[0].bytes == (try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(stored[0].metadata["measurementId"] == String(id))
        #expect(stored[0].metadata["locationCount"] == "5")
        #expect(stored[0].metadata["formatVersion"] == "3")
        #expect(stored[0].metadata["modality"] == "BICYCLE")
        #expect(try uploadState(id)["status"] as? String == "uploaded")
        #expect(collector.ranges == collector.ranges.filter { !$0.contains("*/") })
        // Uploading again sends nothing.
        let again = try upload(collector, [String(id), "--transfer-file", file])
        #expect(again.status == 0)
        #expect(again.stdout.contains("already uploaded"))
    }

    @Test(arguments: [
        ["--drop-after", "100000"], ["--fail500", "2"], ["--omit-range", "1", "--drop-after", "50000"],
        ["--expire-session", "1"], ["--lose-final", "1"],
    ])
    func eachFaultIsSurvived(faults: [String]) throws {
        let collector = try CollectorProcess(faults)
        let id = try replay()
        let file = try synthetic(400_000)
        defer { unlink(file) }
        let result = try upload(collector, [String(id), "--transfer-file", file, "--chunk-size", "150000"])
        #expect(result.status == 0, "\(faults): \(result.stderr) \(result.stdout)")
        let stored = try collector.stored()
        #expect(stored.count == 1, "\(faults): \(collector.ranges)")
        #expect(stored.first?.bytes == (try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(try uploadState(id)["status"] as? String == "uploaded")
    }

    @Test func droppedConnectionResumesPastZero() throws {
        let collector = try CollectorProcess(["--drop-after", "200000"])
        let id = try replay()
        let file = try synthetic(500_000)
        defer { unlink(file) }
        let result = try upload(collector, [String(id), "--transfer-file", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(collector.ranges.contains { $0.contains(" 200000-499999/500000 201") }, "\(collector.ranges)")
    }

    @Test func killedUploadResumesFromTheCollectorsOffset() throws {
        // Larger than what loopback socket buffers hold, so that the kill really cuts the body.
        let collector = try CollectorProcess(["--throttle", "8000000"])
        let id = try replay()
        let file = try synthetic(24_000_000)
        defer { unlink(file) }
        let arguments = ["upload", String(id), "--url", collector.url, "--token-file", collector.tokenFile,
            "--transfer-file", file, "--data-dir", cli.dataDirectory]
        let first = try Subprocess(arguments)
        #expect(cli.waitFor(20) { collector.partialBytes > 1_000_000 })
        kill(first.pid, SIGKILL)
        #expect(first.wait() == 128 + SIGKILL)
        let state = try uploadState(id)
        #expect(state["status"] as? String == "uploading")
        let resumed = try upload(collector, [String(id), "--resume", "--transfer-file", file])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let stored = try collector.stored()
        #expect(stored.count == 1)
        #expect(stored.first?.bytes == (try Data(contentsOf: URL(fileURLWithPath: file))))
        // The resumed PUT started past 0, after a status query.
        let puts = collector.ranges.filter { !$0.contains("*/") }
        #expect(collector.ranges.contains { $0.contains("*/24000000 308 bytes=0-") }, "\(collector.ranges)")
        #expect(puts.last.map { !$0.contains(" 0-") && $0.hasSuffix("201") } == true, "\(collector.ranges)")
        #expect(try uploadState(id)["status"] as? String == "uploaded")
    }

    @Test func aChangedFileVoidsTheStoredSession() throws {
        let collector = try CollectorProcess(["--throttle", "8000000"])
        let id = try replay()
        let file = try synthetic(24_000_000)
        let other = try synthetic(1_000)
        defer {
            unlink(file)
            unlink(other)
        }
        let first = try Subprocess([
            "upload", String(id), "--url", collector.url, "--token-file", collector.tokenFile, "--transfer-file", file,
            "--data-dir", cli.dataDirectory,
        ])
        #expect(cli.waitFor(20) { collector.partialBytes > 1_000_000 })
        kill(first.pid, SIGKILL)
        first.wait()
        let result = try upload(collector, [String(id), "--transfer-file", other])
        #expect(result.status == 0, "\(result.stderr)")
        // No status query on the old session: a new pre-request and the new bytes from 0.
        #expect(!collector.ranges.contains { $0.contains("*/") }, "\(collector.ranges)")
        #expect(collector.ranges.last?.hasSuffix(" 0-999/1000 201") == true, "\(collector.ranges)")
        #expect(try collector.stored().first?.bytes == (try Data(contentsOf: URL(fileURLWithPath: other))))
    }

    @Test func conflictCountsAsUploaded() throws {
        let collector = try CollectorProcess()
        let id = try replay()
        let file = try synthetic(10_000)
        defer { unlink(file) }
        // A copy of the data directory: same device, same measurement, never uploaded.
        let copy = cli.dataDirectory + "-copy"
        try FileManager.default.copyItem(atPath: cli.dataDirectory, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        #expect(try upload(collector, [String(id), "--transfer-file", file]).status == 0)
        let again = try Subprocess([
            "upload", String(id), "--url", collector.url, "--token-file", collector.tokenFile, "--transfer-file", file,
            "--data-dir", copy,
        ])
        #expect(again.wait() == 0, "\(again.stderr)")
        #expect(again.stdout.contains("already had it"))
        #expect(try collector.stored().count == 1)
    }

    @Test func tooFewLocationsIsSkippedWithoutARequest() throws {
        let collector = try CollectorProcess()
        let id = try replay(fixes: 1)
        let file = try synthetic(1000)
        defer { unlink(file) }
        let result = try upload(collector, [String(id), "--transfer-file", file, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let state = try uploadState(id)
        #expect(state["status"] as? String == "skipped")
        #expect((state["reason"] as? String)?.contains("locationCount < 2") == true)
        #expect(collector.ranges.isEmpty)
    }

    @Test func wrongTokenStopsWithItsExitCode() throws {
        let collector = try CollectorProcess()
        let id = try replay()
        let file = try synthetic(1000)
        defer { unlink(file) }
        let bad = collector.directory + ".bad"
        _ = FileManager.default.createFile(atPath: bad, contents: Data("wrong".utf8), attributes: [.posixPermissions: 0o600])
        defer { unlink(bad) }
        let result = try cli.run(["upload", String(id), "--url", collector.url, "--token-file", bad, "--transfer-file", file])
        #expect(result.status == 77)
        #expect(result.stderr.contains("token"))
        #expect(!result.stderr.contains("wrong") && !result.stdout.contains("wrong"))
        chmod(bad, 0o644)
        let open = try cli.run(["upload", String(id), "--url", collector.url, "--token-file", bad, "--transfer-file", file])
        #expect(open.status == 77)
        #expect(open.stderr.contains("readable by group or others"))
    }

    /// The local transfer file of a measurement (the store's cache).
    func transferFile(_ id: Int64) throws -> Data {
        let store = try Store(directory: cli.dataDirectory)
        return try Data(contentsOf: URL(fileURLWithPath: try store.transferFile(for: id, directory: cli.dataDirectory).path))
    }

    @Test func realTransferFilePassesValidationAndIsStoredVerbatim() throws {
        let collector = try CollectorProcess(["--validate"])
        let id = try replay(fixes: 20)
        let result = try upload(collector, ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try collector.stored()
        try #require(stored.count == 1)
        #expect(stored[0].bytes == (try transferFile(id)))
        #expect(stored[0].metadata["locationCount"] == "20")
        let list = try cli.run(["list"])
        #expect(list.stdout.contains("uploaded"))
        let status = try cli.json(["status"])
        #expect((status["uploads"] as? [String: Int])?["uploaded"] == 1)
    }

    @Test func hundredMeasurementsUnderRandomFaultsAreStoredExactlyOnce() throws {
        let collector = try CollectorProcess(["--validate", "--fault-rate", "0.3", "--fault-seed", "7"])
        var ids: [Int64] = []
        for _ in 0..<100 { ids.append(try replay(fixes: 3)) }
        let result = try upload(collector, ["--json", "--chunk-size", "4000"])
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try collector.stored()
        #expect(stored.count == 100)
        let keys = Set(stored.map { ($0.metadata["deviceId"] ?? "") + "/" + ($0.metadata["measurementId"] ?? "") })
        #expect(keys.count == 100)
        let byID = Dictionary(stored.map { ($0.metadata["measurementId"] ?? "", $0.bytes) }, uniquingKeysWith: { a, _ in a })
        for id in ids { #expect(byID[String(id)] == (try transferFile(id)), "measurement \(id)") }
        // Faults did happen, and nothing is left to upload.
        #expect(collector.ranges.contains { $0.contains("*/") })
        let again = try upload(collector, ["--json"])
        #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" || again.stdout.contains("[]"))
    }

    @Test func oneFailureDoesNotStopTheOthers() throws {
        let big = try replay(fixes: 300)
        let small = try replay(fixes: 3)
        let sizes = (try transferFile(big).count, try transferFile(small).count)
        try #require(sizes.0 > sizes.1, "\(sizes)")
        // The larger one exceeds the collector's payload limit: 422, failed.
        let collector = try CollectorProcess(["--payload-limit", String((sizes.0 + sizes.1) / 2)])
        let result = try upload(collector, [])
        #expect(result.status == 75, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("measurement \(big): failed"))
        #expect(result.stdout.contains("measurement \(small): uploaded"))
        let state = try uploadState(big)
        #expect(state["status"] as? String == "failed")
        #expect((state["reason"] as? String)?.contains("422") == true)
        #expect(try collector.stored().count == 1)
    }

    /// A transfer file over the collector's payload limit that no cut into parts fits (a limit
    /// below TransferSizeBound's 64 KiB of overhead; PartsEndToEndTests cuts one that fits) is
    /// skipped with that reason before anything is sent (the collector would answer 422 on every
    /// run), not failed and retried.
    @Test func aFileOverThePayloadLimitIsSkippedWithoutARequest() throws {
        let id = try replay(fixes: 300)
        let size = try transferFile(id).count
        let collector = try CollectorProcess()
        let result = try upload(collector, ["--payload-limit", String(size - 1)])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("measurement \(id): skipped"), "\(result.stdout)")
        let state = try uploadState(id)
        #expect(state["status"] as? String == "skipped")
        #expect(state["reason"] as? String == "its transfer file is \(size) bytes, over the collector's payload limit of \(size - 1) (collector.payload_limit)")
        #expect(try collector.stored().isEmpty)
        #expect(collector.ranges.isEmpty, "no PUT reached the collector")
        // Not tried again by a plain upload; at the limit, --all sends it.
        #expect(try upload(collector, []).stdout.contains("nothing to upload"))
        let all = try upload(collector, ["--all", "--payload-limit", String(size)])
        #expect(all.status == 0 && all.stdout.contains("measurement \(id): uploaded"), "\(all.stdout)")
    }

    /// 503 with Retry-After (the collector's fault plan): the upload waits as told and completes.
    @Test func retryAfterIsHonoured() throws {
        let id = try replay()
        let collector = try CollectorProcess(["--unavailable", "2", "--retry-after", "2"])
        let result = try upload(collector, ["-v"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("measurement \(id): uploaded"))
        #expect(result.stderr.contains("HTTP 503") && result.stderr.contains("(Retry-After 2 s)"), "\(result.stderr)")
        #expect(collector.ranges.filter { $0.hasSuffix(" 503") }.count == 2, "\(collector.ranges)")
        #expect(try collector.stored().count == 1)
    }

    @Test func missingConfigurationHasItsExitCode() throws {
        _ = try replay()
        let result = try cli.run(["upload"])
        #expect(result.status == 78)
    }
}
