import CaptureConfig
import CaptureStorage
import CaptureWiring
import Foundation
import Testing

@testable import CaptureDoctor

/// `capture doctor --storage`: the medium measured in the data directory, judged against the
/// flush interval.
@Suite struct StorageLatencyTests {
    @Test func measuresRoundsAndLeavesNothingBehind() throws {
        let device = try DoctorDevice()
        let report = Doctor(seconds: 0.3).storage(try device.device(""))
        let latency = try #require(report.storage)
        #expect(latency.rounds >= 1)
        #expect(latency.p50Milliseconds > 0)
        #expect(latency.p50Milliseconds <= latency.p99Milliseconds && latency.p99Milliseconds <= latency.maxMilliseconds)
        #expect(report.checks.count == 1 && report.checks[0].check == "storage" && report.checks[0].status != .fail)
        #expect(report.checks[0].detail.contains("fdatasync: p50 "), "\(report.checks[0].detail)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: device.data).isEmpty)
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains("\"p99Milliseconds\""), "\(json)")
    }

    @Test func aDirectoryThatIsNotThereFailsInOneLine() throws {
        let device = try DoctorDevice()
        try FileManager.default.removeItem(atPath: device.data)
        let report = Doctor(seconds: 0.1).storage(try device.device(""))
        #expect(report.failed == 1 && report.storage == nil)
        #expect(report.checks[0].detail.hasSuffix("No such file or directory"), "\(report.checks[0].detail)")
    }

    /// Five syncs at p99 against half the flush interval: 1 s tolerates a p99 of 100 ms, not more.
    @Test func slowRoundsThreatenTheFlushInterval() {
        let quick = StorageLatency(latencies: Array(repeating: 0.002, count: 99) + [0.09])
        #expect(quick.p99Milliseconds == 2 && quick.maxMilliseconds == 90)
        #expect(!quick.threatens(flushInterval: 1))
        let slow = StorageLatency(latencies: Array(repeating: 0.002, count: 90) + Array(repeating: 0.15, count: 10))
        #expect(slow.p50Milliseconds == 2 && slow.p99Milliseconds == 150)
        #expect(slow.threatens(flushInterval: 1))
        #expect(!slow.threatens(flushInterval: 2))
    }
}
