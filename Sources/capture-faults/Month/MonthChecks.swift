import CaptureCore
import CaptureTransfer
import CaptureRecorder
import CaptureStorage
import Foundation
import Glibc

/// The checks of ``Month``: after every power cut (the store within its budget, what is
/// committed noted), after every pass of the timer (what reached the collector, and when), and at
/// the end (every ride delivered exactly once, as its own measurement or its parts, with its
/// fixes; nothing committed lost; nothing of standing only delivered).
struct MonthChecks {
    let tally: Tally
    let data: String
    let budget: Int64
    /// Fix times (true time, ms) the store held after some power cut, with their measurement.
    private var committed: [Int64: Int64] = [:]
    /// How far each measurement's committed fixes came, as last seen after a power cut, metres:
    /// one that moved less than `ride.min_distance` in all may be discarded as still, its
    /// committed fixes with it (a ride ended by power is judged as any ride's end is).
    private var travelled: [Int64: Double] = [:]
    /// `ride.min_distance`, metres.
    let minDistance: Double
    /// The largest store once the flush log of a cut was applied (bytes).
    private var worstReplayed: Int64 = 0
    /// Per measurement at the collector (its file name): its fix times, and the true time the
    /// campaign first saw it there.
    private var delivered: [String: (fixes: [Int64], at: Int64)] = [:]
    private var worstSize: Int64 = 0
    /// Measurements seen in the store after a power cut, and those of them put on GNSS time.
    private var seen = Set<Int64>()
    private var corrected = Set<Int64>()
    private var figuresText = ""
    /// Whether a pass of the timer after the month found nothing waiting.
    var drained = false

    init(tally: Tally, data: String, budget: Int64, minDistance: Double) {
        self.tally = tally
        self.data = data
        self.budget = budget
        self.minDistance = minDistance
    }

    /// After a power cut (nothing of the box runs): the store as left is within its budget; its
    /// fixes, once the flush log is applied, are noted as committed.
    mutating func afterCut(at time: Int64, collector: CollectorRun) throws {
        // The store as the box left it: its file before any process opens it again.
        var info = stat()
        guard stat(data + "/capture.sqlite", &info) == 0 else { return }
        let left = Int64(info.st_size)
        worstSize = max(worstSize, left)
        tally.check(left <= budget, "\(Week.iso(time)): the store was left at \(left) bytes, over its budget of \(budget)")
        let (fixes, size, discarded) = try Store.inspect(data) { store in
            var fixes: [Int64: Int64] = [:]
            for measurement in try store.measurements() {
                var travel = RideTravel()
                try store.forEachFix(of: measurement.id) {
                    fixes[$0.timestamp] = measurement.id
                    travel.pass($0)
                }
                travelled[measurement.id] = travel.metres
                seen.insert(measurement.id)
                if try store.clockCorrection(of: measurement.id) != nil { corrected.insert(measurement.id) }
            }
            return (fixes, try store.databaseSize(), try store.discardedCount())
        }
        committed.merge(fixes) { old, _ in old }
        // Opening it applies the flush log: the flushes staged since the last commit (committed
        // data, never dropped). No ceiling holds this process; the recorder reserved room for them
        // (StoreBudget, docs/faults.md). Measured, not checked.
        worstReplayed = max(worstReplayed, size)
        tally.check(discarded == 0, "\(Week.iso(time)): \(discarded) unsent ride(s) dropped though drop_unsent is never")
    }

    /// After a pass of the timer: what is new at the collector was delivered by `time`.
    mutating func noteDeliveries(_ collector: CollectorRun, at time: Int64) throws {
        let folder = collector.directory + "/data/measurements"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".ccyf") {
            guard delivered[name] == nil else { continue }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            do {
                let file = try TransferFileDecoder.decode([UInt8](bytes))
                delivered[name] = (file.fixes.map(\.timestamp), time)
            } catch {
                tally.check(false, "the collector's \(name) does not decode: \(error)")
                delivered[name] = ([], time)
            }
        }
    }

    /// The end: every check against what the campaign knows to be true.
    /// `mustPrune`: the run recorded far more rides than the budget holds.
    mutating func finish(truth: MonthTruth, collector: CollectorRun, preRoll: Int64, endAfterStill: Int64, mustPrune: Bool) throws {
        try noteDeliveries(collector, at: .max)
        let (counts, unsent, skipped, pruned, present) = try Store.inspect(data) { store in
            let uploads = try store.uploads()
            let measurements = try store.measurements()
            let finished = measurements.filter { !$0.isOpen }
            return (
                try store.rideCounts(), finished.filter { ![.uploaded, .skipped].contains(uploads[$0.id]?.status) }.count,
                Set(finished.filter { uploads[$0.id]?.status == .skipped }.map(\.id)), try store.prunedDeliveredCount(),
                Set(measurements.map(\.id))
            )
        }
        // Gone from the store, having moved less than ride.min_distance in all: discarded as still.
        let still = Set(travelled.filter { $0.value < minDistance && !present.contains($0.key) }.keys)
        tally.check(
            still.count <= counts[.discardedAsStill] ?? 0,
            "\(still.count) short measurement(s) gone, \(counts[.discardedAsStill] ?? 0) counted as discarded as still")
        let stored = try collector.stored()
        var perMeasurement: [String: Int] = [:]
        for entry in stored { perMeasurement[entry.measurement, default: 0] += 1 }
        for (id, copies) in perMeasurement.sorted(by: { $0.key < $1.key }) {
            tally.check(copies == 1, "measurement \(id) reached the collector \(copies) times")
        }
        var copies: [Int64: Int] = [:]
        var deliveredAt: [Int: Int64] = [:]
        for (name, measurement) in delivered.sorted(by: { $0.key < $1.key }) {
            var rides = Set<Int>()
            for time in measurement.fixes {
                copies[time, default: 0] += 1
                guard truth.epochs[time] != nil else {
                    tally.check(false, "\(name): a fix at \(Week.iso(time)) that the receiver never sent")
                    continue
                }
                if let ride = truth.ride(at: time, preRoll: preRoll, endAfterStill: endAfterStill, slack: 1_500) {
                    rides.insert(ride)
                } else {
                    tally.check(false, "\(name): a fix at \(Week.iso(time)) outside every ride (standing only)")
                }
            }
            tally.check(!measurement.fixes.isEmpty, "\(name): delivered without a fix")
            tally.check(rides.count <= 1, "\(name): holds fixes of rides \(rides.sorted()) (two rides in one measurement)")
            for ride in rides { deliveredAt[ride] = max(deliveredAt[ride] ?? .min, measurement.at) }
        }
        for (time, count) in copies where count > 1 {
            tally.check(false, "the fix at \(Week.iso(time)) was delivered \(count) times")
        }
        // Fixes a measurement kept as skipped (a single fix) or discarded as still need not arrive.
        let excused = skipped.union(still)
        var delays: [Int64] = []
        for (index, ride) in truth.rides.enumerated() {
            let expected = truth.epochs.filter {
                $0.value.ride == index && $0.value.moving && !$0.value.mayBeLost && !excused.contains(committed[$0.key] ?? 0)
            }.keys
            let missing = expected.filter { copies[$0] == nil }.sorted()
            tally.check(
                missing.isEmpty,
                "ride \(index) (\(Week.iso(ride.firstMotion)) to \(Week.iso(ride.lastMotion))): \(missing.count) of its \(expected.count) "
                    + "moving fixes not delivered, first \(missing.first.map(Week.iso) ?? "-")")
            if let at = deliveredAt[index], at != .max { delays.append(at - ride.lastMotion) }
            tally.check(deliveredAt[index].map { $0 != .max } ?? false, "ride \(index) was never seen delivered after a pass of the timer")
        }
        // A part of a ride cut by the power a moment after the receiver's first fix may hold a
        // single fix: the collector takes no measurement with fewer than two, so the uploader
        // keeps it, skipped (docs/upload.md). Its fix is the only committed one not delivered.
        for id in skipped.sorted() {
            let held = committed.values.filter { $0 == id }.count
            tally.check(held < 2, "measurement \(id) was skipped though the store held \(held) of its fixes")
        }
        let lost = committed.filter { copies[$0.key] == nil && !excused.contains($0.value) }.keys.sorted()
        tally.check(lost.isEmpty, "\(lost.count) committed fixes never delivered, first \(lost.first.map(Week.iso) ?? "-")")
        tally.check(unsent == 0, "\(unsent) finished measurement(s) still unsent at the end")
        if mustPrune { tally.check(pruned > 0, "the budget never made room by pruning a delivered ride") }
        delays.sort()
        let median = delays.isEmpty ? 0 : delays[delays.count / 2]
        figuresText =
            "\(delivered.count) measurements delivered; delivery delay median \(Self.hours(median)), max \(Self.hours(delays.last ?? 0)); "
            + "\(corrected.count) of \(seen.count) put on GNSS time; rides ended by motion \(counts[.endedByMotion] ?? 0), "
            + "by power \(counts[.endedByPower] ?? 0), discarded as still \(counts[.discardedAsStill] ?? 0); "
            + "\(skipped.count) parts of a single fix kept (skipped); "
            + "store left at most \(worstSize / 1024) of \(budget / 1024) KiB (\(worstReplayed / 1024) KiB with its flush log applied), "
            + "\(pruned) delivered pruned"
            + (mustPrune ? "" : " (too few rides to need it)")
    }

    var figures: String { figuresText }

    static func hours(_ ms: Int64) -> String { String(format: "%.1f h", Double(ms) / 3_600_000) }
}
