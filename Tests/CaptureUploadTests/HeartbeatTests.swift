import CaptureCore
import CaptureStorage
import Foundation
import Glibc
import Testing

@testable import CaptureUpload

/// The heartbeat's text and its schedule (issue 44, item 1); the push itself against the real
/// Pushgateway is in FleetEndToEndTests.
@Suite struct HeartbeatTests {
    @Test func aHeartbeatIsTheMetricsWithoutHelpLinesAndFitsIn4KiB() throws {
        let metrics = try DeliveryMetrics.text(of: nil, now: 1_700_000_000_000)
        let text = Heartbeat.text(
            metrics: metrics, now: 1_700_000_000_500, interval: TimeSpan(seconds: 300)!, storeBudget: 64 << 20, state: "idle",
            version: "0.1.0 (\"quoted\")")
        #expect(text.utf8.count <= 4096, "\(text.utf8.count) bytes")
        #expect(!text.contains("# HELP"))
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("capture_heartbeat_timestamp_seconds 1700000000.5"))
        #expect(lines.contains("capture_heartbeat_interval_seconds 300.0"))
        #expect(lines.contains("capture_store_budget_bytes 67108864"))
        #expect(lines.contains(#"capture_info{version="0.1.0 (\"quoted\")",state="idle"} 1"#))
        #expect(lines.contains("capture_under_voltage_now 0") && lines.contains("capture_under_voltage_since_boot 0"))
        #expect(!text.contains("capture_clock_") && !text.contains("capture_flush_"), "what is not known is left out, not sent as 0")
        var board = Heartbeat.Board()
        board.underVoltageSinceBoot = true
        (board.clockSynchronized, board.clockEstimatedError, board.gnssOffset) = (false, 16, -2.5)
        board.flushes = StorageLatency(latencies: Array(repeating: 0.002, count: 99) + [0.25])
        let brownout = Heartbeat.text(
            metrics: metrics, now: 0, interval: TimeSpan(seconds: 300)!, storeBudget: nil, board: board, state: "idle", version: "0")
        #expect(brownout.contains("\ncapture_under_voltage_since_boot 1\n") && brownout.contains("\ncapture_under_voltage_now 0\n"))
        for line in [
            "capture_clock_synchronized 0.0", "capture_clock_estimated_error_seconds 16.0", "capture_clock_gnss_offset_seconds -2.5",
            "capture_flush_p99_seconds 0.002", "capture_flush_max_seconds 0.25",
        ] {
            #expect(brownout.contains("\n" + line + "\n"), "\(line)")
        }
        #expect(brownout.utf8.count <= 4096, "\(brownout.utf8.count) bytes")
        // Every family of `capture metrics` is in it.
        for line in metrics.split(separator: "\n") where !line.hasPrefix("#") { #expect(lines.contains(String(line))) }
    }

    @Test func oneIsDueAtTheFirstWakeUpAfterItsIntervalAndNoBacklogIsKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heartbeat-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let interval = TimeSpan(seconds: 300)!
        #expect(Heartbeat.isDue(directory: directory, interval: interval, now: 1_000_000))
        Heartbeat.pushed(directory: directory, at: 1_000_000)
        #expect(!Heartbeat.isDue(directory: directory, interval: interval, now: 1_299_999))
        #expect(Heartbeat.isDue(directory: directory, interval: interval, now: 1_300_000))
        // A box offline for a day pushes once when it is back: one push, then the interval again.
        #expect(Heartbeat.isDue(directory: directory, interval: interval, now: 87_400_000))
        Heartbeat.pushed(directory: directory, at: 87_400_000)
        #expect(!Heartbeat.isDue(directory: directory, interval: interval, now: 87_400_001))
        // A clock set back below the last push does not silence the box until it catches up.
        #expect(Heartbeat.isDue(directory: directory, interval: interval, now: 1_000))
    }

    @Test func basicOrBearerAuthenticationFromFilesOnlyTheOwnerReads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heartbeat-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secret = directory + "/secret"
        FileManager.default.createFile(atPath: secret, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: 0o600])
        let interval = TimeSpan(seconds: 300)!
        let basic = FleetSettings(pushURL: "https://push.example.org", interval: interval, username: "box", passwordFile: secret)
        #expect(try Heartbeat.authorization(basic) == "Basic " + Data("box:s3cret".utf8).base64EncodedString())
        let bearer = FleetSettings(pushURL: "https://push.example.org", interval: interval, tokenFile: secret)
        #expect(try Heartbeat.authorization(bearer) == "Bearer s3cret")
        #expect(try Heartbeat.authorization(FleetSettings(pushURL: "https://push.example.org", interval: interval)) == nil)
        chmod(secret, 0o644)
        #expect(throws: HeartbeatError.credentials(.exposed(path: secret, mode: 0o644))) { try Heartbeat.authorization(bearer) }
    }

    /// The shipped dashboard and alerting rules (issue 44, items 2 and 3) ask only for what a box
    /// pushes: every metric their expressions name is a family of the heartbeat.
    @Test func theShippedDashboardAndRulesNameOnlyMetricsTheBoxPushes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let heartbeat = Heartbeat.text(
            metrics: try DeliveryMetrics.text(of: nil, now: 0), now: 0, interval: TimeSpan(seconds: 300)!, storeBudget: nil,
            state: "idle", version: "0")
        let pushed = Set(heartbeat.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        let data = try Data(contentsOf: root.appendingPathComponent("dist/grafana/capture-fleet.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let queries = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        let rules = try String(contentsOf: root.appendingPathComponent("dist/prometheus/capture-rules.yml"), encoding: .utf8)
            .split(separator: "\n").compactMap { $0.split(separator: "expr: ", maxSplits: 1).dropFirst().first.map(String.init) }
        #expect(queries.count >= 10 && rules.count == 6)
        let metric = try Regex("capture_[a-z_]+")
        for expression in queries + rules {
            let names = expression.matches(of: metric).map { String(expression[$0.range]) }
            #expect(!names.isEmpty, "\(expression)")
            for name in names { #expect(pushed.contains(name), "\(expression): \(name) is not pushed") }
        }
    }

    @Test func thePushGoesUnderTheBoxsInstance() {
        #expect(
            Heartbeat.url(base: "https://push.example.org/", device: "9320e3c0")
                == "https://push.example.org/metrics/job/capture/instance/9320e3c0")
        #expect(Heartbeat.url(base: "http://127.0.0.1:9091", device: "x") == "http://127.0.0.1:9091/metrics/job/capture/instance/x")
    }
}
