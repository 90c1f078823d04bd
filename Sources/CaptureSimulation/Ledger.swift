import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation
import Glibc
import Synchronization

/// A broken invariant: its name (docs/faults.md, "The simulated life") and what broke it.
package struct Violation: Sendable, Equatable, CustomStringConvertible {
    package var invariant: String
    package var detail: String

    package var description: String { "[\(invariant)] \(detail)" }
}

/// What the simulation knows the store committed, checked after every step against the store,
/// the collector and the recorder's status. The invariants (docs/faults.md):
///
/// - `committed-kept`: fixes in the database are never lost, unless their measurement was
///   delivered (the collector holds it whole) and then pruned, or the whole ride, across every
///   interruption, moved less than `ride.min_distance` (all distances ± ``tolerance``).
/// - `no-short-ride`: no finished ride kept (or delivered) moved less than `ride.min_distance`:
///   none is still-only.
/// - `fix-in-span`: every fix of a finished measurement lies within its start and stop.
/// - `one-open`: at most one measurement is open.
/// - `store-budget`: the database and the flush log stay within `retention.max_store_size`
///   plus ``budgetSlack``.
/// - `recorder-up`: a box that is on has a recorder that has not stopped.
/// - `status-distance`: `capture status` never says the ride under way moved less than what
///   the store holds of it.
/// - `delivered-once` (``SimulatedCollector``): the collector stores each measurement once, and
///   what it holds under an id is what the box had.
/// - `delivered-whole`: a delivered measurement still in the store holds what was delivered.
struct Ledger {
    /// What the simulation saw of one measurement in the database.
    struct Seen {
        var fixes = 0
        /// Metres along its fixes, in time order (as the ride rules add them).
        var distance = 0.0
        var finished = false
        /// Gone from the store (its loss judged once).
        var gone = false
    }

    /// Distances within this many metres of `ride.min_distance` are not judged either way.
    static let tolerance = 5.0
    /// What the store may exceed its budget by: one staging limit and the sqlite page cache's worth.
    static let budgetSlack: Int64 = 4 << 20

    let minDistance: Double
    let budget: Int64
    private var seen: [Int64: Seen] = [:]
    private var changeCounter: UInt32?
    var violations: [Violation] = []

    init(minDistance: Double, budget: Int64) {
        self.minDistance = minDistance
        self.budget = budget
    }

    /// How often each invariant broke; ``violations`` holds the first time of each.
    private(set) var breaks: [String: Int] = [:]
    /// The invariant whose break ends the life (nil: it goes on to its end).
    var stopAt: String?
    var stopped: Bool { stopAt.map { target in violations.contains { $0.invariant == target } } ?? false }

    mutating func fail(_ invariant: String, _ detail: String) {
        record(Violation(invariant: invariant, detail: detail))
    }

    mutating func record(_ violation: Violation) {
        breaks[violation.invariant, default: 0] += 1
        if !violations.contains(where: { $0.invariant == violation.invariant }) { violations.append(violation) }
    }

    /// SQLite's file change counter (the database header's bytes 24–27): with a rollback
    /// journal, every commit changes it, so the store is read again only after one.
    static func changeCounter(of path: String) -> UInt32? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4)
        guard pread(fd, &bytes, 4, 24) == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Checks every invariant after a step.
    mutating func check(box: SimulatedBox) throws {
        box.collector.violations.forEach { record($0) }
        box.collector.violations = []
        // Off, nothing changes (and opening the store would apply the flush log, as a boot does).
        guard let recorder = box.recorder else { return }
        let counter = Self.changeCounter(of: recorder.store.path)
        if counter != changeCounter {
            changeCounter = counter
            try checkStore(recorder.store, box: box)
        }
        checkRecorder(recorder)
    }

    private mutating func checkRecorder(_ recorder: Recorder) {
        let (state, failure, ride) = recorder.inspect { machine in
            (machine.state, machine.failure, machine.status(at: 0).ride)
        }
        if case .finished = state {
            fail("recorder-up", "the recorder stopped while the box is on" + (failure.map { ": \($0)" } ?? ""))
        }
        if case .recording(let id) = state, let distance = ride?.distance, let stored = seen[id], !stored.gone,
            distance + Self.tolerance < stored.distance
        {
            fail(
                "status-distance",
                "capture status says ride \(id) moved \(Self.metres(distance)), the store holds \(Self.metres(stored.distance)) of it")
        }
    }

    private mutating func checkStore(_ store: Store, box: SimulatedBox) throws {
        let measurements = try store.measurements()
        let present = Set(measurements.map(\.id))
        let held = box.collector.held
        for id in seen.keys.sorted() where !present.contains(id) && !seen[id]!.gone {
            seen[id]!.gone = true
            let ride = seen[id]!
            if let delivered = held[id] {
                if delivered < ride.fixes {
                    fail("committed-kept", "measurement \(id) pruned with \(ride.fixes) fixes, the collector holds \(delivered)")
                }
            } else if ride.distance >= minDistance + Self.tolerance {
                fail(
                    "committed-kept",
                    "measurement \(id) is gone, not delivered: \(ride.fixes) committed fixes over \(Self.metres(ride.distance))")
            }
        }
        if measurements.count(where: \.isOpen) > 1 {
            fail("one-open", "measurements \(measurements.filter(\.isOpen).map(\.id)) are open at once")
        }
        for measurement in measurements {
            var ride = seen[measurement.id] ?? Seen()
            let finishing = measurement.status == .finished && !ride.finished
            guard !ride.finished || finishing else {
                if let delivered = held[measurement.id], delivered != ride.fixes {
                    fail("delivered-whole", "measurement \(measurement.id) holds \(ride.fixes) fixes, \(delivered) were delivered")
                }
                continue
            }
            let fixes = try store.counts(of: measurement.id).locations
            if fixes != ride.fixes || finishing {
                if fixes < ride.fixes, ride.distance >= minDistance + Self.tolerance {
                    fail(
                        "committed-kept", "measurement \(measurement.id) held \(ride.fixes) fixes, now \(fixes)")
                }
                ride.fixes = fixes
                ride.distance = try readFixes(of: measurement, in: store, checkingSpan: finishing)
            }
            if finishing {
                ride.finished = true
                if ride.distance < minDistance - Self.tolerance {
                    fail(
                        "no-short-ride",
                        "measurement \(measurement.id) finished and kept having moved \(Self.metres(ride.distance)) "
                            + "(\(ride.fixes) fixes), less than ride.min_distance")
                }
            }
            seen[measurement.id] = ride
        }
        let size = store.fileSize() + Self.fileSize(box.directory + "/" + FlushLog.fileName)
        if size > budget + Self.budgetSlack {
            fail("store-budget", "the store takes \(size) bytes, its budget is \(budget)")
        }
    }

    /// The distance along a measurement's fixes; with `checkingSpan` (it has finished: an open
    /// one may still be moved onto GNSS time), checks each lies within its start and stop.
    private mutating func readFixes(of measurement: MeasurementRecord, in store: Store, checkingSpan: Bool) throws -> Double {
        var distance = 0.0
        var last: (latitude: Double, longitude: Double)?
        var outside: [Int64] = []
        try store.forEachFix(of: measurement.id) { fix in
            let here = (latitude: fix.latitude, longitude: fix.longitude)
            if let last {
                let step = Geodesy.distance(from: last, to: here)
                if step.isFinite { distance += step }
            }
            last = here
            if checkingSpan, fix.timestamp < measurement.startTime || measurement.endTime.map({ fix.timestamp > $0 }) == true {
                outside.append(fix.timestamp)
            }
        }
        if let first = outside.first {
            fail(
                "fix-in-span",
                "measurement \(measurement.id) (\(measurement.startTime)…\(measurement.endTime.map(String.init) ?? "open")) "
                    + "holds \(outside.count) fix(es) outside, the first at \(first)")
        }
        return distance
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    static func metres(_ value: Double) -> String { SimulatedEvent.decimal(value) + " m" }
}
