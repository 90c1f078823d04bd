import CaptureCore
import CaptureUpload
import Foundation
import Testing

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

    @Test func thePushGoesUnderTheBoxsInstance() {
        #expect(
            Heartbeat.url(base: "https://push.example.org/", device: "9320e3c0")
                == "https://push.example.org/metrics/job/capture/instance/9320e3c0")
        #expect(Heartbeat.url(base: "http://127.0.0.1:9091", device: "x") == "http://127.0.0.1:9091/metrics/job/capture/instance/x")
    }
}
