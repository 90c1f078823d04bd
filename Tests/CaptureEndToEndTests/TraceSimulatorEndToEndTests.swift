import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// `capture start --source trace:FILE` as a simulated device: the trace's marks drive the
/// measurement, it ends by itself, and `capture resume` after `kill -9` stores nothing twice.
@Suite(.serialized) struct TraceSimulatorEndToEndTests {
    static let base: Int64 = 1_781_424_000_000

    /// A trace file in a temporary directory, removed with the value.
    final class TraceFixture {
        let path: String
        init(_ lines: [String]) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-sim-\(UUID().uuidString).trace").path
            try ([TraceFormat.magic] + lines).joined(separator: "\n").appending("\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        deinit { unlink(path) }
    }

    /// 2.5 s: BICYCLE, paused from 0.8 to 1.3 s, WALKING from 1.8 s, a fix every 100 ms (at 50, 150,
    /// … ms, latitude 51 + n/1000) and an acceleration every 50 ms (at 0, 50, … ms).
    static func ride() -> [String] {
        var lines = ["start \(base) BICYCLE"]
        let marks: [Int64: String] = [800: "pause", 1300: "resume", 1800: "modality", 2500: "stop"]
        for time in stride(from: Int64(0), to: 2500, by: 25) {
            if let mark = marks[time] { lines.append("\(mark) \(base + time)" + (mark == "modality" ? " WALKING" : "")) }
            if time % 50 == 0 { lines.append("acc \(base + time) 0.1 0.2 9.81") }
            if time % 100 == 50 { lines.append("fix \(base + time) \(51 + Double(time / 100) / 1000) 13.7 100 5 - 4 90") }
        }
        lines.append("stop \(base + 2500)")
        return lines
    }

    /// Waits until no measurement is open and the recorder has exited.
    func waitUntilItEnds(_ cli: CLI, seconds: Double = 20) throws -> Bool {
        try cli.waitFor(seconds) { try cli.json(["status"])["state"] as? String == "idle" && cli.recorderPID == nil }
    }

    /// Issue 46: a trace malformed partway left its measurement capturing for ever (the source
    /// failed, nothing stopped it) and the next replay was refused.
    @Test func aTraceMalformedPartwayStopsItsMeasurementThere() throws {
        var lines = Array(Self.ride().prefix { !$0.hasPrefix("pause") })
        lines.append("acc \(Self.base + 790) 0.1 0.2")
        let trace = try TraceFixture(lines + ["acc \(Self.base + 850) 0.1 0.2 9.81"])
        let cli = CLI()
        #expect(try cli.run(["start", "--source", "trace:" + trace.path, "--flush-interval", "0.1"]).status == 0)
        #expect(try waitUntilItEnds(cli), "the measurement was not stopped")
        let record = try Store(directory: cli.dataDirectory).measurement(1)
        #expect(record.status == .finished)
        let journal = try String(contentsOfFile: cli.dataDirectory + "/attachments/1/recorder.jsonl", encoding: .utf8)
        #expect(journal.contains("\"source_failed\"") && journal.contains(":\(lines.count + 1): "), "\(journal)")
        #expect(try cli.run(["replay", cli.fixture("export/ride.trace")]).stdout == "2\n")
    }

    @Test func theTracesMarksDriveTheMeasurementAndItEndsByItself() throws {
        let trace = try TraceFixture(Self.ride())
        let cli = CLI()
        let start = try cli.json(["start", "--source", "trace:" + trace.path, "--flush-interval", "0.1"])
        #expect(start["modality"] as? String == "BICYCLE")
        #expect(try waitUntilItEnds(cli))

        let store = try Store(directory: cli.dataDirectory)
        let record = try store.measurement(1)
        #expect(record.status == .finished)
        #expect(record.modality == "BICYCLE")
        let events = try store.events(of: 1)
        #expect(
            events.map { "\($0.type)" + ($0.value ?? "") } == [
                "\(EventType.lifecycleStart)", "\(EventType.modalityTypeChange)BICYCLE", "\(EventType.lifecyclePause)",
                "\(EventType.lifecycleResume)", "\(EventType.modalityTypeChange)WALKING", "\(EventType.lifecycleStop)",
            ])
        // Re-based: the spacing is the trace's, to the millisecond.
        #expect(events.map { $0.timestamp - record.startTime } == [0, 0, 800, 1300, 1800, 2500])
        #expect(record.endTime == record.startTime + 2500)
        #expect(try store.tracks(of: 1).count == 2)
        let first = try store.fixes(of: 1, track: 1)
        let second = try store.fixes(of: 1, track: 2)
        #expect(first.map { $0.timestamp - record.startTime } == Array(stride(from: 50, through: 750, by: 100)))
        #expect(second.map { $0.timestamp - record.startTime } == Array(stride(from: 1350, through: 2450, by: 100)))
        // Nothing is open any more, also while the ending recorder may still hold its lock.
        let stop = try cli.run(["stop"])
        #expect(stop.status == 4, "\(stop.stderr)")
    }

    @Test func explicitModalityOverridesTheStartMark() throws {
        let trace = try TraceFixture(Self.ride())
        let cli = CLI()
        #expect(try cli.json(["start", "--modality", "car", "--source", "trace:" + trace.path])["modality"] as? String == "CAR")
        #expect(try cli.run(["stop"]).status == 0)
        #expect(try Store(directory: cli.dataDirectory).measurement(1).modality == "CAR")
    }

    @Test func resumeAfterKillNineContinuesWhereTheCommittedDataEnds() throws {
        // 4 s without marks: a fix every 50 ms (at 5, 55, … ms, latitude 51 + n/1000), an
        // acceleration every 20 ms whose x counts up.
        var lines = ["start \(Self.base) CAR"]
        for time in stride(from: Int64(0), to: 4000, by: 5) {
            if time % 20 == 0 { lines.append("acc \(Self.base + time) \(Double(time) / 1000) 0 9.81") }
            if time % 50 == 5 { lines.append("fix \(Self.base + time) \(51 + Double(time / 50) / 1000) 13.7 - - - - -") }
        }
        let trace = try TraceFixture(lines)
        let cli = CLI()
        #expect(try cli.run(["start", "--source", "trace:" + trace.path, "--flush-interval", "0.1"]).status == 0)
        #expect(try cli.waitForCommitted(40))
        let pid = try #require(cli.recorderPID)
        kill(pid, SIGKILL)
        #expect(cli.waitFor { kill(pid, 0) != 0 })
        let store = try Store(directory: cli.dataDirectory)
        let committed = try store.fixes(of: 1)
        let committedEnd = try #require(try store.lastTimestamp(of: 1))
        usleep(500_000)

        let resumed = try cli.json(["resume"])
        #expect(resumed["state"] as? String == "capturing")
        #expect(resumed["track"] as? Int == 2)
        // Issue 46: status showed the source as `trace:…@delay=2635`, a name for recoveries only.
        let shown = try cli.run(["status"]).stdout
        #expect(shown.contains("  source     trace:\(trace.path): ") && !shown.contains("@delay="), "\(shown)")
        #expect(try waitUntilItEnds(cli))

        let record = try store.measurement(1)
        #expect(record.status == .finished)
        #expect(record.modality == "CAR")
        #expect(record.sources.contains("@delay="))
        let fixes = try store.fixes(of: 1)
        // The committed fixes are kept, and the trace goes on after them: every fix once, in order.
        #expect(Array(fixes.prefix(committed.count)) == committed)
        #expect(fixes.map(\.latitude) == (0..<80).map { 51 + Double($0) / 1000 })
        #expect(Set(fixes.map(\.timestamp)).count == fixes.count)
        var accelerations: [MotionSample] = []
        try store.forEachBatch(of: 1, sensor: .accelerometer) { accelerations += try Store.samples(of: $0) }
        #expect(accelerations.map { Int(($0.x * 1000).rounded()) } == (0..<200).map { $0 * 20 })
        #expect(Set(accelerations.map(\.timestamp)).count == accelerations.count)
        // Track 2 begins after the committed data, at least as long after it as the recorder was down.
        let resumedFixes = try store.fixes(of: 1, track: 2)
        #expect((resumedFixes.first?.timestamp ?? 0) > committedEnd + 500)
        // Within a track the trace's spacing holds.
        #expect(zip(resumedFixes, resumedFixes.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 50 })
        let events = try store.events(of: 1).map(\.type)
        #expect(
            events == [.lifecycleStart, .modalityTypeChange, .lifecyclePause, .lifecycleResume, .lifecycleStop])
    }

    @Test func aLoopStartsTheTraceAgainOnANewTrackUntilStopped() throws {
        let trace = try TraceFixture([
            "start \(Self.base) WALKING", "fix \(Self.base) 51.0 13.7 - - - - -", "acc \(Self.base + 100) 0 0 9.81",
            "fix \(Self.base + 200) 51.001 13.7 - - - - -", "stop \(Self.base + 300)",
        ])
        let cli = CLI()
        #expect(try cli.run(["start", "--loop", "--source", "trace:" + trace.path, "--flush-interval", "0.1"]).status == 0)
        #expect(try cli.waitFor { (try cli.json(["status"])["track"] as? Int ?? 0) >= 3 })
        #expect(try cli.json(["stop"])["state"] as? String == "finished")
        let store = try Store(directory: cli.dataDirectory)
        let record = try store.measurement(1)
        #expect(record.sources.hasSuffix("@loop"))
        let one = try store.fixes(of: 1, track: 1).map { $0.timestamp - record.startTime }
        let two = try store.fixes(of: 1, track: 2).map { $0.timestamp - record.startTime }
        #expect(one == [0, 200])
        #expect(two == [301, 501])
    }
}
