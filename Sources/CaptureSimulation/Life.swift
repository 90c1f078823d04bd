import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation
import Glibc

/// What one simulated life came to.
package struct LifeResult: Sendable {
    package var seed: UInt64
    /// The events that ran: all, or up to the one during which the invariant it stopped at broke.
    package var events: [SimulatedEvent]
    /// The event log: each event, then what happened (rides, boots, cuts, syncs) and each
    /// invariant broken for the first time. The same seed and events give the same log, byte
    /// for byte.
    package var log: [String]
    /// The first time each invariant broke, in order, with the event it broke at.
    package var violations: [(event: Int, violation: Violation)]
    /// True time the life lasted, ms.
    package var simulated: Int64
    /// Seconds the box was on (steps of its recorder).
    package var steps: Int

    /// The first invariant broken, if one was.
    package var violation: Violation? { violations.first?.violation }
    package var passed: Bool { violations.isEmpty }

    /// Whether `invariant` broke in this life.
    package func broke(_ invariant: String) -> Bool { violations.contains { $0.violation.invariant == invariant } }
}

/// Runs simulated lives of one box: the events of ``LifePlan`` (or any list of them) through a
/// ``SimulatedBox``, every invariant of ``Ledger`` checked after every step; and shrinks a
/// failing list to a shorter one that still fails.
package enum Life {
    /// The life of the box with `seed` over `days` days.
    package static func run(seed: UInt64, days: Int) throws -> LifeResult {
        try run(seed: seed, events: LifePlan.events(seed: seed, days: days))
    }

    /// Runs `events` on a fresh box in a directory of its own (on tmpfs where there is one),
    /// removed afterwards, to the end or, with `stoppingAt`, until that invariant breaks.
    /// `seed` drives what the events leave open (the collector's failures, the upload's jitter).
    package static func run(seed: UInt64, events: [SimulatedEvent], stoppingAt target: String? = nil) throws -> LifeResult {
        let directory = try temporaryDirectory()
        // The runtime directory the boots' recorder lock made (RecorderControl.interruptedRecovery).
        let runtime = RuntimeDirectory(dataDirectory: directory).path
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: runtime)
        }
        let collector = SimulatedCollector(seed: seed)
        let box = SimulatedBox(directory: directory, collector: collector)
        var ledger = Ledger(
            minDistance: SimulatedBox.ride.minDistance, budget: SimulatedBox.retention.maxStoreSize?.bytes ?? .max)
        ledger.stopAt = target
        var result = LifeResult(seed: seed, events: [], log: [], violations: [], simulated: 0, steps: 0)
        defer { box.cut(after: 0) }
        for (index, event) in events.enumerated() {
            result.events.append(event)
            result.log.append("#\(index) \(event.line)")
            do {
                try perform(event, on: box, ledger: &ledger, steps: &result.steps)
                try ledger.check(box: box)
            } catch {
                ledger.fail("recorder-up", "the box failed at this event: \(error)")
            }
            result.log += box.notes
            box.notes = []
            for violation in ledger.violations.dropFirst(result.violations.count) {
                result.violations.append((index, violation))
                result.log.append("VIOLATION \(violation)")
            }
            if ledger.stopped { break }
        }
        if !ledger.breaks.isEmpty {
            result.log.append(
                "broken: " + ledger.breaks.keys.sorted().map { "\($0) \(ledger.breaks[$0]!)×" }.joined(separator: ", "))
        }
        result.simulated = box.now - SimulatedBox.epoch
        return result
    }

    static func perform(_ event: SimulatedEvent, on box: SimulatedBox, ledger: inout Ledger, steps: inout Int) throws {
        func seconds(_ count: Int, speed: Double, heading: Double) throws {
            for _ in 0..<count {
                try box.second(speed: speed, heading: heading)
                if box.isOn { steps += 1 }
                try ledger.check(box: box)
                if ledger.stopped { return }
            }
        }
        switch event {
        case .boot(let off, let skew): try box.boot(offFor: off, skew: skew)
        case .move(let count, let speed, let heading): try seconds(count, speed: speed, heading: heading)
        case .stand(let count): try seconds(count, speed: 0, heading: 0)
        case .noFix(let count): box.darken(count)
        case .cut(let actions): box.cut(after: actions)
        case .collector(let mode):
            box.collector.mode = mode
            box.note("collector \(mode.rawValue)")
        }
    }

    /// A shorter list of events that still breaks `invariant` (by default the first `result`
    /// broke): delta debugging (drop chunks of events, halving them while none can go) over
    /// the events up to where it broke, within `budget` runs. Returns the shortest failing
    /// life found, stopped where it broke.
    package static func shrink(_ result: LifeResult, invariant: String? = nil, budget: Int = 200) -> (result: LifeResult, runs: Int) {
        guard let target = invariant ?? result.violation?.invariant,
            let broke = result.violations.first(where: { $0.violation.invariant == target })
        else { return (result, 0) }
        var events = Array(result.events.prefix(broke.event + 1))
        var best = result
        var runs = 0
        var chunk = max(1, events.count / 2)
        while runs < budget {
            var removed = false
            var start = 0
            while start < events.count, runs < budget {
                var candidate = events
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                runs += 1
                if let attempt = try? run(seed: result.seed, events: candidate, stoppingAt: target), attempt.broke(target) {
                    best = attempt
                    events = attempt.events
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed {
                if chunk == 1 { break }
                chunk = max(1, chunk / 2)
            }
        }
        if runs == 0 || best.events.count == result.events.count {
            // Nothing could go: the life up to where it broke is the shortest found.
            best = (try? run(seed: result.seed, events: events, stoppingAt: target)) ?? result
        }
        return (best, runs)
    }

    /// A new directory for a box: under /dev/shm where it exists (a tmpfs: fsync costs nothing
    /// there, and nothing that was synced is lost in a simulated cut either way), else /tmp.
    static func temporaryDirectory() throws -> String {
        let parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array((parent + "/capture-sim-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return String(cString: made)
    }
}
