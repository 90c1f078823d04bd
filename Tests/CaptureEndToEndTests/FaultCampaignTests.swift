import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The short part of the fault campaign (docs/faults.md): the same `capture-faults` executable
/// that scripts/faults runs, with small counts (the month: two days of two trips, about 75 s);
/// and the full store on its own.
@Suite(.serialized) struct FaultCampaignTests {
    static let executable = BuiltProducts.path("capture-faults")

    @Test func shortFaultCampaignPasses() throws {
        let run = try Program.run(
            Self.executable,
            [
                "--recorder-kills", "4", "--upload-kills", "2", "--measurements", "5", "--fault-rate", "0.3",
                "--seed", "7", "--trace", Repository.root + "/fixtures/bicycle.trace", "--ride-copies", "1",
                "--upload-seconds", "2", "--kill-within", "2.5", "--week-days", "3", "--power-cuts", "50",
                "--powercut-source", Repository.root + "/scripts/powercut/powercut.c", "--month-days", "2", "--month-most-trips", "2",
            ])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| campaign") }
        #expect(rows.count == 17, "\(run.stdout)")
        for name in [
            "recorder kill -9, trace | 2 |", "recorder kill -9, fake IIO | 2 |", "capture upload kill -9 | 2 |",
            "full disk (--max-store-size) | 1 |", "collector faults at 30 % | 5 |",
            "a week of rides (3 d), collector down half the time | 9 |", "power cut, the simulator itself | 1 |",
            "power cut, live recording | 10 |", "power cut, a lifecycle command | 5 |", "power cut, the flush log's replay | 5 |",
            "power cut, rides by motion, booted by the unit | 10 |",
            "power cut, capture upload | 5 |", "power cut, capture sync with pruning | 5 |",
            "power cut, capture import and attach | 5 |", "power cut, fdatasync EIO | 1 |", "power cut, a login refresh | 5 |",
            // Rides: each of the four trips has one or two (the seed decides).
            "a month in the field (2 d), nobody at a shell | ",
        ] {
            #expect(rows.contains { $0.hasPrefix("| " + name) && $0.hasSuffix("| pass |") }, "\(name): \(run.stdout)")
        }
        #expect(run.stdout.contains("all campaigns passed"), "\(run.stdout)")
    }

    /// A lifecycle command whose commit does not fit exits 73 with the disk-full message (it
    /// used to be reported as an I/O error, 74), and the recorder stops cleanly.
    @Test func pauseOnAFullStoreExitsWithTheDiskFullCode() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("car.trace")]).status == 0)
        // The tightest limit under which a measurement still starts (its start fits into pages
        // that have room); then more samples pending than fit.
        var pid: pid_t?
        for extra in [0, 4096, 8192] as [Int64] {
            let size = try Store(directory: cli.dataDirectory).databaseSize()
            let start = try cli.run([
                "start", "--source", "trace:" + cli.fixture("bicycle.trace"), "--flush-interval", "3600",
                "--max-store-size", String(size + extra),
            ])
            if start.status == 73 { continue }
            #expect(start.status == 0, "\(start.stderr)")
            pid = cli.recorderPID
            break
        }
        let recorder = try #require(pid)
        // Rows of 800 samples (~3 KB) take a page each: 2 700 samples pending need more pages
        // than the last partly filled ones can offer.
        #expect(
            try cli.waitFor(30) {
                ((try cli.json(["status"])["recorder"] as? [String: Any])?["pendingSamples"] as? Int ?? 0) >= 2_700
            })
        let pause = try cli.run(["pause"])
        #expect(pause.status == 73, "\(pause.stderr)")
        #expect(pause.stderr.hasPrefix("capture: the disk holding"), "\(pause.stderr)")
        #expect(pause.stderr.contains("nothing committed was lost"))
        #expect(cli.waitFor { hasExited(recorder) })
        let store = try Store(directory: cli.dataDirectory)
        #expect(try store.integrityCheck() == "ok")
        // The pause's flush (the samples pending before it, then its event) was durable in the
        // flush log before its commit failed (issue 28, item 5): a store with room (this one is
        // opened without the limit) takes it in.
        #expect(try store.counts(of: 2).total >= 2_700)
        let status = try cli.json(["status"])
        #expect(status["state"] as? String == "interrupted")
        // Why it ended is in status, not only in recorder.log (issue 32).
        #expect((status["ended"] as? [String: Any])?["kind"] as? String == "store-full", "\(status)")
        #expect(try cli.run(["status"]).stdout.contains("\n  ended      the store was full: the disk holding"))
        #expect(try cli.run(["stop"]).status == 0)
        #expect(try store.measurement(2).status == .finished)
    }

    @Test func maxStoreSizeRejectsSizesThatAreNotSizes() throws {
        let cli = CLI()
        for bad in ["0", "-5", "12X", "M", ""] {
            let result = try cli.run(["start", "--source", "trace:" + cli.fixture("car.trace"), "--max-store-size", bad])
            #expect(result.status == 64, "\(bad): \(result.stderr)")
        }
    }
}

/// Whether process `pid` is gone or a zombie in every thread. Its leader alone reads as a
/// zombie while its other threads still exit and hold its descriptors, the flush log's lock
/// among them: a store opened then could not apply the log.
private func hasExited(_ pid: pid_t) -> Bool {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return true }
    return tasks.allSatisfy { task in
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].hasPrefix(" Z") || stat[stat.index(after: close)...].hasPrefix(" X")
    }
}

extension SampleCounts {
    fileprivate var total: Int { accelerometer + gyroscope + magnetometer + pressure + locations }
}
