import CaptureCore
import CaptureTransfer
import CaptureRecorder
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Unattended delivery (`capture sync`, `upload.auto`) against a `capture-collector` on
/// 127.0.0.1, with a configuration file per device, as a device runs it.
@Suite struct DeliveryEndToEndTests {
    /// A device: a data directory, a configuration file and a collector address.
    final class Device {
        let root: String
        var data: String { root + "/data" }
        var config: String { root + "/config.yaml" }
        let token = "token-\(UUID().uuidString)"
        var tokenFile: String { root + "/token" }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-delivery-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(
                atPath: tokenFile, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
        }

        deinit {
            // A recorder a failed test left behind is ended by its pid.
            if let pid = CLI.recorderPID(dataDirectory: data) { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(atPath: RuntimeDirectory(dataDirectory: data).path)
            try? FileManager.default.removeItem(atPath: root)
        }

        func configure(port: Int, _ upload: String, more: String = "") throws {
            try """
            collector: { url: "http://127.0.0.1:\(port)/", token_file: \(tokenFile), retry_budget: 5s }
            upload: \(upload)
            \(more)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// `capture ARGS --data-dir DATA` with only this device's configuration; `shift` runs it
        /// under faketime (`+2h`: as the timer would, two hours later).
        func run(_ arguments: [String], shift: String? = nil) throws -> Program.Result {
            try Program.run("/usr/bin/env", command(arguments, shift: shift))
        }

        /// The arguments of `/usr/bin/env` that run `capture ARGS` for this device.
        func command(_ arguments: [String], shift: String? = nil, environment extra: [String] = []) -> [String] {
            let environment = [
                "PATH=/usr/bin:/bin", "HOME=\(root)/home", "XDG_CONFIG_HOME=\(root)/xdg", "CAPTURE_CONFIG=\(config)",
            ] + Program.runtimeDirectoryVariable
            let faked = shift.map { ["/usr/bin/faketime", "--exclude-monotonic", "-f", $0] } ?? []
            return ["-i"] + environment + extra + faked + [CLI.executable] + arguments + ["--data-dir", data]
        }

        func json(_ arguments: [String]) throws -> [String: Any] {
            let result = try run(arguments + ["--json"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        /// Replays a short ride that ended just now, so that its waiting time starts now.
        @discardableResult
        func replay(fixes: Int = 4) throws -> Int64 {
            let start = Int64(Date().timeIntervalSince1970 * 1000) - Int64(fixes) * 1000
            let path = root + "/ride-\(UUID().uuidString).trace"
            try shortTrace(fixes: fixes, start: start).write(toFile: path, atomically: true, encoding: .utf8)
            let result = try run(["replay", path])
            #expect(result.status == 0, "\(result.stderr)")
            return Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        /// The ids `capture list` shows.
        func ids() throws -> [Int64] {
            ((try JSONSerialization.jsonObject(with: Data(try run(["list", "--json"]).stdout.utf8)) as? [[String: Any]]) ?? [])
                .compactMap { $0["id"] as? Int64 }
        }

        /// The delivery figures of `capture status --json`.
        func delivery() throws -> [String: Any] { try json(["status"])["delivery"] as? [String: Any] ?? [:] }
    }

    /// A running collector and a device that has its token.
    static func deviceWithCollector() throws -> (CollectorProcess, Device) {
        let collector = try CollectorProcess()
        let device = try Device()
        _ = FileManager.default.createFile(
            atPath: device.tokenFile, contents: try Data(contentsOf: URL(fileURLWithPath: collector.tokenFile)),
            attributes: [.posixPermissions: 0o600])
        return (collector, device)
    }

    @Test("privacy.zones: the uploaded file and its metadata leave out the fixes inside a zone and the samples of that stretch")
    func privacyZoneLeavesOutWhatItHides() throws {
        let (collector, device) = try Self.deviceWithCollector()
        // The short ride's fixes run north from (51.05, 13.73), 3.3 m apart: 0, 1 and 2 lie
        // within 8 m of its start, fix 3 (10 m) does not.
        try device.configure(
            port: collector.port, "{ auto: false }",
            more: "privacy:\n  zones:\n    - { latitude: 51.05, longitude: 13.73, radius: 8 }\n")
        let id = try device.replay(fixes: 20)
        let upload = try device.run(["upload", "--all"])
        #expect(upload.status == 0, "\(upload.stderr)")
        let stored = try collector.stored()
        try #require(stored.count == 1)
        let file = try TransferFileDecoder.decode([UInt8](stored[0].bytes))
        #expect(file.fixes.count == 17)
        #expect(stored[0].metadata["locationCount"] == "17")
        #expect(file.fixes.allSatisfy { $0.latitude > 51.05 + 2.5 * 0.00003 })
        #expect(stored[0].metadata["startLocLat"] == String(file.fixes[0].latitude))
        // Five samples a second; those before fix 3 (the first outside) are left out.
        #expect(file.samples(of: .accelerometer).count == 100 - 15)
        // The store keeps everything, and every export leaves the same out.
        #expect((try device.json(["show", String(id)])["counts"] as? [String: Any])?["locations"] as? Int == 20)
        let gpx = try device.run(["export", String(id), "--format", "gpx"])
        #expect(gpx.status == 0 && gpx.stdout.components(separatedBy: "<trkpt ").count - 1 == 17)
        _ = collector
    }

    @Test("a ride stopped while the collector is down reaches it after it comes back, with no command typed but the timer's")
    func deliveredAfterTheCollectorComesBack() throws {
        let device = try Device()
        let port = Int(try Loopback.freePort())
        try device.configure(port: port, "{ auto: true }")
        let trace = device.root + "/ride.trace"
        try shortTrace(fixes: 3, start: 1_781_424_000_000).write(toFile: trace, atomically: true, encoding: .utf8)
        // The trace plays live for 3 s and ends at its stop mark; the recorder then starts the
        // automatic delivery, which finds nobody at the collector's address.
        let started = try device.run(["start", "--source", "trace:" + trace])
        #expect(started.status == 0, "\(started.stderr)")
        var sync: [String: Any] = [:]
        for _ in 0..<200 where (sync["failures"] as? Int ?? 0) == 0 {
            usleep(100_000)
            sync = try device.json(["status"])["sync"] as? [String: Any] ?? [:]
        }
        let log = (try? String(contentsOfFile: device.data + "/sync.log", encoding: .utf8)) ?? ""
        #expect(sync["failures"] as? Int == 1, "\(sync) \(log)")
        #expect(log.contains("the collector did not answer"), "\(log)")
        let next = sync["nextAttemptAt"] as? Int64 ?? 0
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(next > now + 40_000 && next < now + 80_000, "the first wait is a minute ±20 %: \(next - now) ms")

        // The timer a minute later: the backoff holds, nothing is tried.
        let early = try device.run(["sync"])
        #expect(early.status == 0, "\(early.stderr)")
        #expect(early.stdout.contains("next attempt at"), "\(early.stdout)")

        // The collector comes back; the timer runs again after the backoff (two hours later).
        let collector = try CollectorProcess(port: port, token: device.token)
        #expect(try collector.stored().isEmpty)
        let later = try device.run(["sync"], shift: "+2h")
        #expect(later.status == 0, "\(later.stdout) \(later.stderr)")
        #expect(later.stdout.contains("measurement 1: uploaded"), "\(later.stdout)")
        #expect(try collector.stored().count == 1)
        let delivery = try device.delivery()
        #expect(delivery["delivered"] as? Int == 1 && delivery["waiting"] as? Int == 0, "\(delivery)")
        let upload = try device.json(["show", "1"])["upload"] as? [String: Any] ?? [:]
        #expect(upload["attempts"] as? Int == 1, "\(upload)")
        #expect((upload["deliveryDelayMs"] as? Int64 ?? 0) > 0, "\(upload)")
        #expect(try device.json(["status"])["sync"].flatMap { ($0 as? [String: Any])?["nextAttemptAt"] } == nil)
    }

    @Test("min_waiting, max_age, --now and manual delivery, each as the policy says")
    func eachPolicy() throws {
        let (collector, device) = try Self.deviceWithCollector()

        // min_waiting 2: one waiting ride is not enough, two are.
        try device.configure(port: collector.port, "{ min_waiting: 2, max_age: 6h }")
        try device.replay()
        let one = try device.json(["sync"])
        #expect(one["decision"] as? String == "not-yet", "\(one)")
        #expect(try collector.stored().isEmpty)
        try device.replay()
        let two = try device.json(["sync"])
        #expect(two["decision"] as? String == "delivered", "\(two)")
        #expect(try collector.stored().count == 2)

        // max_age 1s: one ride, fewer than min_waiting, delivered once it has waited 1 s.
        try device.configure(port: collector.port, "{ min_waiting: 5, max_age: 1s }")
        try device.replay()
        usleep(1_500_000)
        #expect(try device.json(["sync"])["decision"] as? String == "delivered")
        #expect(try collector.stored().count == 3)

        // Manual (auto off, the default): stop starts nothing; --now sends whatever waits.
        try device.configure(port: collector.port, "{ min_waiting: 5, max_age: 6h }")
        try device.replay()
        #expect(try device.json(["sync"])["decision"] as? String == "not-yet")
        #expect(!FileManager.default.fileExists(atPath: device.data + "/sync.log"))
        #expect(try device.json(["sync", "--now"])["decision"] as? String == "delivered")
        #expect(try collector.stored().count == 4)
        #expect(try device.json(["sync"])["decision"] as? String == "nothing-waiting")

        // The figures, through a Prometheus text-format parser.
        let metrics = try device.run(["metrics"])
        #expect(metrics.status == 0, "\(metrics.stderr)")
        let parser = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                for sample in family.samples:
                    out[sample.name + "".join("/" + v for v in sample.labels.values())] = sample.value
            print(json.dumps(out))
            """
        let parsed = try Program.run("/usr/bin/env", ["python3", "-c", parser], input: Array(metrics.stdout.utf8))
        #expect(parsed.status == 0, "\(parsed.stderr)\n\(metrics.stdout)")
        let values = (try? JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Double]) ?? [:]
        #expect(values["capture_measurements/delivered"] == 4, "\(values)")
        #expect(values["capture_measurements/waiting"] == 0)
        #expect(values["capture_measurements/discarded"] == 0)
        #expect(values["capture_upload_attempts_total"] == 4)
        #expect(values["capture_sync_consecutive_failures"] == 0)
        #expect((values["capture_store_bytes"] ?? 0) > 0)
    }

    @Test("two capture sync at once upload nothing twice")
    func twoSyncsAtOnce() throws {
        let (collector, device) = try Self.deviceWithCollector()
        try device.configure(port: collector.port, "{ min_waiting: 1 }")
        for _ in 0..<4 { try device.replay(fixes: 40) }
        let environment = [
            "PATH=/usr/bin:/bin", "HOME=\(device.root)/home", "CAPTURE_CONFIG=\(device.config)",
        ] + Program.runtimeDirectoryVariable
        let syncs = try (0..<2).map { _ in
            try Subprocess(
                ["-i"] + environment + [CLI.executable, "sync", "--now", "--data-dir", device.data], bytes: [],
                executable: "/usr/bin/env")
        }
        let statuses = syncs.map { $0.wait() }
        #expect(statuses == [0, 0], "\(syncs.map(\.output))")
        #expect(try collector.stored().count == 4)
        for id in 1...4 {
            let upload = try device.json(["show", String(id)])["upload"] as? [String: Any] ?? [:]
            #expect(upload["status"] as? String == "uploaded")
            #expect(upload["attempts"] as? Int == 1, "measurement \(id) was sent more than once: \(upload)")
        }
    }

    @Test("capture prune killed at random moments: nothing unsent is lost, the store stays whole")
    func pruneKilledAtRandom() throws {
        let (collector, device) = try Self.deviceWithCollector()
        try device.configure(port: collector.port, "{ min_waiting: 1 }")
        var random = SystemRandomNumberGenerator()
        var unsent: Set<Int64> = []
        for round in 0..<8 {
            try device.replay(fixes: 30)
            try device.replay(fixes: 30)
            #expect(try device.run(["sync", "--now"]).status == 0)
            unsent = [try device.replay(fixes: 30), try device.replay(fixes: 30)]
            // Every delivered measurement may go; the budget of 8 KiB cannot be met without
            // dropping unsent ones, which drop_unsent: never forbids.
            let prune = try Subprocess(
                device.command(
                    ["prune"],
                    environment: ["CAPTURE_RETENTION_KEEP_UPLOADED_DAYS=0", "CAPTURE_RETENTION_MAX_STORE_SIZE=8K"]),
                bytes: [], executable: "/usr/bin/env")
            usleep(UInt32.random(in: 0..<60_000, using: &random))
            kill(prune.pid, SIGKILL)
            _ = prune.wait()
            let present = Set(try device.ids())
            #expect(unsent.isSubset(of: present), "round \(round): unsent \(unsent) not all in \(present)")
            let check = try Program.run("/usr/bin/sqlite3", [device.data + "/capture.sqlite", "PRAGMA quick_check"])
            #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "round \(round): \(check.stdout)")
        }
        // Uninterrupted, the same prune removes every delivered measurement and keeps the rest.
        let finished = try Program.run(
            "/usr/bin/env",
            device.command(["prune"], environment: ["CAPTURE_RETENTION_KEEP_UPLOADED_DAYS=0", "CAPTURE_RETENTION_MAX_STORE_SIZE=8K"]))
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(finished.stdout.contains("still over retention.max_store_size"), "\(finished.stdout)")
        #expect(Set(try device.ids()) == unsent)
        let delivery = try device.delivery()
        // 2 delivered in the first round, then 4 a round (the 2 new and the 2 left unsent before).
        #expect(delivery["discarded"] as? Int == 0 && delivery["delivered"] as? Int == 30, "\(delivery)")
    }

    @Test(
        "a full store prunes delivered rides and keeps recording; the ride being recorded is kept",
        arguments: ["--max-store-size", "retention.max_store_size"])
    func aFullStorePrunesDeliveredRides(ceiling: String) throws {
        let (collector, device) = try Self.deviceWithCollector()
        try device.configure(port: collector.port, "{ min_waiting: 1 }")
        for _ in 0..<3 { #expect(try device.run(["replay", Repository.fixture("bicycle.trace")]).status == 0) }
        #expect(try device.run(["sync", "--now"]).status == 0)
        #expect(try collector.stored().count == 3)
        let size = (try FileManager.default.attributesOfItem(atPath: device.data + "/capture.sqlite")[.size] as? Int) ?? 0
        // Room for about two seconds of the car ride. Flushes wait in the flush log until 2 MiB
        // of it is used (a record per flush, 4 KiB each: 26 s at 20 flushes a second), and the
        // ceiling is met when they go to the database.
        // The recorder keeps the configuration's budget as it records, as it keeps the flag's.
        var start = ["start", "--source", "trace:" + Repository.fixture("car.trace"), "--flush-interval", "0.05"]
        if ceiling == "--max-store-size" {
            start += [ceiling, String(size + 16_384)]
        } else {
            try device.configure(port: collector.port, "{ min_waiting: 1 }", more: "retention: { max_store_size: \(size + 16_384) }")
        }
        let started = try device.run(start)
        #expect(started.status == 0, "\(started.stderr)")
        var pruned = false
        for _ in 0..<600 where !pruned {
            usleep(100_000)
            pruned = try device.ids().count < 4
        }
        let statusText = try device.run(["status"]).stdout
        #expect(pruned, "no delivered ride was pruned: \(statusText)")
        let status = try device.json(["status"])
        #expect(status["state"] as? String == "capturing", "the recorder went on: \(status)")
        #expect(try device.run(["stop"]).status == 0)
        let left = try device.ids()
        #expect(left.contains(4), "the ride being recorded is kept: \(left)")
        let delivery = try device.delivery()
        #expect(delivery["discarded"] as? Int == 0 && delivery["delivered"] as? Int == 3, "\(delivery)")
    }
}
