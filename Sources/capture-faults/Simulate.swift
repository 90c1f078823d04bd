import ArgumentParser
import CaptureSimulation
import Foundation
import Glibc

/// `capture-faults simulate`: simulated lives of boxes (docs/faults.md, "The simulated life"),
/// one process, a simulated clock, no sleeps. Prints each life's seed; a failing life prints
/// the command that replays it and its shrunk event log; the last line gives simulated
/// box-days per CPU-second.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate boxes' lives in the packaged configuration; check the invariants after every step.",
        discussion: """
            Box i (from 0) lives the events drawn from seed + i. Exit status 0 when every life \
            kept every invariant, 1 otherwise.
            """)

    @Option(help: "Seed of the first box (default: random, printed).") var seed: UInt64?
    @Option(help: "Days each box lives.") var days = 30
    @Option(help: "Boxes, each with its own seed (seed, seed + 1, …).") var boxes = 1
    @Option(help: "Replay this event log (lines as printed, `#n event`) instead of drawing one; with --seed.")
    var events: String?
    @Option(help: "Most lives run to shrink a failing one (0: do not shrink).") var shrinkRuns = 300
    @Option(help: "The invariant to shrink a failing life for (default: the first it broke).") var invariant: String?
    @Flag(help: "Print every life's whole event log.") var verbose = false

    func validate() throws {
        guard days >= 1, boxes >= 1, shrinkRuns >= 0 else { throw ValidationError("--days ≥ 1, --boxes ≥ 1, --shrink-runs ≥ 0") }
        if events != nil, seed == nil { throw ValidationError("--events needs the --seed it was printed with") }
    }

    func run() throws {
        let first = seed ?? UInt64.random(in: 1...999_999)
        print("simulate: seed \(first), \(boxes) box(es) × \(days) day(s)")
        // CPU time of the lives alone, not of shrinking.
        var cpu = 0.0
        var failed = 0
        var simulated: Int64 = 0
        for box in 0..<boxes {
            // Each life's lines as it ends, also into a pipe (scripts/test watches for silence).
            defer { fflush(nil) }
            let seed = first &+ UInt64(box)
            let replayed = try events.map(Self.read)
            let began = Self.cpuSeconds()
            let result = try replayed.map { try Life.run(seed: seed, events: $0) } ?? Life.run(seed: seed, days: days)
            cpu += Self.cpuSeconds() - began
            // A drawn life lasts its days, whether or not its last trip ends the last day.
            simulated += self.events == nil ? max(result.simulated, Int64(days) * 86_400_000) : result.simulated
            if verbose { result.log.forEach { print($0) } }
            guard !result.passed else {
                print("box seed \(seed): pass (\(result.events.count) events, \(result.steps) s on)")
                continue
            }
            failed += 1
            print("box seed \(seed): FAIL (\(result.events.count) events, \(result.steps) s on)")
            for (event, violation) in result.violations { print("box seed \(seed): FAIL at event #\(event) \(violation)") }
            print("replay: scripts/simulate --seed \(seed) --days \(days)" + (events.map { " --events \($0)" } ?? ""))
            if shrinkRuns > 0 {
                let (shrunk, runs) = Life.shrink(result, invariant: invariant, budget: shrinkRuns)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("capture-sim-\(seed).events").path
                try shrunk.events.enumerated().map { "#\($0.offset) \($0.element.line)" }.joined(separator: "\n")
                    .write(toFile: file, atomically: true, encoding: .utf8)
                print("shrunk from \(result.events.count) to \(shrunk.events.count) events in \(runs) runs; its log:")
                shrunk.log.forEach { print($0) }
                print("replay the shrunk log: scripts/simulate --seed \(seed) --events \(file)")
            } else {
                result.log.suffix(30).forEach { print($0) }
            }
        }
        let boxDays = Double(simulated) / 86_400_000
        print(
            "simulated \(String(format: "%.1f", boxDays)) box-days in \(String(format: "%.2f", cpu)) CPU-s: "
                + "\(String(format: "%.1f", boxDays / max(cpu, 0.001))) box-days per CPU-second (seed \(first))")
        if failed > 0 {
            print("\(failed) of \(boxes) box(es) FAILED")
            throw ExitCode(1)
        }
    }

    /// The events of a log as printed (`#n event`; other lines are ignored).
    static func read(_ path: String) throws -> [SimulatedEvent] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { return nil }
            return SimulatedEvent(line: String(line[line.index(after: space)...]))
        }
    }

    /// User and system CPU time of this process, seconds (getrusage).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
