import CaptureCore
import CaptureSensors
import Foundation
import Glibc
import Testing

/// The trace as a simulated device: its marks, re-basing, continuing after a crash, looping.
/// The measurement starts far in the past, so nothing waits for the wall clock.
@Suite struct LiveTraceSourceTests {
    /// What a run handed over, in order: `S time` for a sample, `verb time` for a mark.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    static let ride = """
        \(TraceFormat.magic)
        start 1000 BICYCLE
        acc 1000 0 0 9.81
        fix 1010 51.0 13.0 - - - - -
        pause 1100
        acc 1150 0 0 9.81
        resume 1200
        modality 1300 WALKING
        acc 1350 0 0 9.81
        stop 1400

        """

    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-live-\(UUID().uuidString).trace").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func play(_ source: LiveTraceSource, from start: Int64, until count: Int = .max) throws -> [String] {
        let collected = Collected()
        try source.run(
            measurementStart: start, deliver: { sample in collected.add("S \(sample.timestamp - start)") },
            mark: { command, time in
                let word: String
                switch command {
                case .modality(let modality): word = "modality \(modality.rawValue)"
                default: word = command.verb
                }
                collected.add("\(word) \(time - start)")
            },
            shouldStop: { collected.all.count >= count })
        return collected.all
    }

    static let past = WallClock.now() - 3_600_000

    @Test func marksAndSamplesAreReBasedOntoTheMeasurementsStart() throws {
        let path = try write(Self.ride)
        defer { unlink(path) }
        let source = LiveTraceSource(path: path)
        #expect(try source.initialModality() == .bicycle)
        #expect(
            try play(source, from: Self.past) == [
                "S 0", "S 10", "pause 100", "S 150", "resume 200", "modality WALKING 300", "S 350", "stop 400",
            ])
    }

    @Test func withoutAStopMarkTheLastRecordEndsIt() throws {
        let path = try write("\(TraceFormat.magic)\nacc 500 0 0 1\nacc 520 0 0 1\n")
        defer { unlink(path) }
        let source = LiveTraceSource(path: path)
        #expect(try source.initialModality() == nil)
        #expect(try play(source, from: Self.past) == ["S 0", "S 20", "stop 20"])
    }

    @Test func continuingSkipsWhatIsStoredAndAddsTheTimeTheRecorderWasDown() throws {
        let path = try write(Self.ride)
        defer { unlink(path) }
        // Stored up to play time 150 (the sample during the pause); recovered 5 s later.
        let next = try #require(
            LiveTraceSource(path: path).continuing(
                measurementStart: Self.past, committedEnd: Self.past + 150, resumedAt: Self.past + 5_150) as? LiveTraceSource)
        #expect(next.delay == 5_000)
        #expect(next.name == "trace:\(path)@delay=5000")
        #expect(try play(next, from: Self.past) == ["resume 5200", "modality WALKING 5300", "S 5350", "stop 5400"])
        // A second recovery counts from the delay already stored.
        let again = try #require(
            try SourceRegistry.standard.makeSource(next.name).continuing(
                measurementStart: Self.past, committedEnd: Self.past + 5_300, resumedAt: Self.past + 6_000) as? LiveTraceSource)
        #expect(again.delay == 5_700)
        #expect(try play(again, from: Self.past) == ["S 6050", "stop 6100"])
    }

    @Test func aLoopPausesAtTheEndAndStartsAgainOnANewTrack() throws {
        let path = try write(Self.ride)
        defer { unlink(path) }
        let source = LiveTraceSource(path: path, loop: true)
        #expect(source.name == "trace:\(path)@loop")
        // One pass is 400 ms; the next begins 1 ms after it ended, its start mark a modality change.
        #expect(
            try play(source, from: Self.past, until: 12) == [
                "S 0", "S 10", "pause 100", "S 150", "resume 200", "modality WALKING 300", "S 350", "pause 400",
                "resume 401", "modality BICYCLE 401", "S 401", "S 411",
            ])
    }

    @Test func asTheBoxsReceiverItPlaysFromNowWithoutItsMarksAndEndsNothing() throws {
        let path = try write(Self.ride)
        defer { unlink(path) }
        let receiver = try #require(LiveTraceSource(path: path, delay: 5_000).detectingRides() as? LiveTraceSource)
        #expect(!receiver.drivesLifecycle && receiver.name == "trace:\(path)")
        let before = WallClock.now()
        // Told that a measurement began an hour ago, it plays from now all the same.
        let played = try play(receiver, from: Self.past)
        #expect(played.allSatisfy { $0.hasPrefix("S ") }, "marks were handed over: \(played)")
        let times = played.compactMap { Int64($0.dropFirst(2)) }.map { $0 + Self.past - before }
        #expect(times.count == 4 && times.first.map { (0..<200).contains($0) } == true, "\(times)")
        #expect(times.map { $0 - times[0] } == [0, 10, 150, 350])
    }

    @Test func traceSpecOptionsRoundTrip() {
        #expect(TraceSpec(parsing: "/r/a.trace") == TraceSpec(path: "/r/a.trace"))
        #expect(TraceSpec(parsing: "/r/a.trace@loop@delay=12") == TraceSpec(path: "/r/a.trace", loop: true, delay: 12))
        #expect(TraceSpec(parsing: "/r/a@b.trace") == TraceSpec(path: "/r/a@b.trace"))
        #expect(TraceSpec(parsing: "/r/a.trace@delay=x") == TraceSpec(path: "/r/a.trace@delay=x"))
        // A hold that would overflow the re-based times is no option (it was a trap).
        let huge = "/r/a.trace@delay=\(Int64.max)"
        #expect(TraceSpec(parsing: huge) == TraceSpec(path: huge))
        #expect(TraceSpec(parsing: "/r/a.trace@delay=-5") == TraceSpec(path: "/r/a.trace@delay=-5"))
        #expect(TraceSpec(path: "/r/a.trace", loop: true, delay: 7).argument == "/r/a.trace@loop@delay=7")
        #expect(SourceRegistry.standard.normalized("trace:a.trace@loop").hasSuffix("/a.trace@loop"))
        #expect(SourceRegistry.standard.normalized("trace:a.trace@loop").hasPrefix("trace:/"))
        // Speed (benchmarks of long rides): 1…10000 times; anything else is part of the path.
        #expect(TraceSpec(parsing: "/r/a.trace@loop@speed=144") == TraceSpec(path: "/r/a.trace", loop: true, speed: 144))
        #expect(TraceSpec(path: "/r/a.trace", loop: true, delay: 7, speed: 2.5).argument == "/r/a.trace@loop@speed=2.5@delay=7")
        #expect(TraceSpec(parsing: "/r/a.trace@loop@speed=2.5@delay=7") == TraceSpec(path: "/r/a.trace", loop: true, delay: 7, speed: 2.5))
        #expect(TraceSpec(parsing: "/r/a.trace@speed=0.5") == TraceSpec(path: "/r/a.trace@speed=0.5"))
        #expect(TraceSpec(parsing: "/r/a.trace@speed=1e9") == TraceSpec(path: "/r/a.trace@speed=1e9"))
    }
}
