import CaptureCore
import CaptureStorage
import Foundation
import Glibc

/// A month in the field (issue 33.6): a box on a vehicle, powered with it, that nobody touches
/// after installation. Each trip powers it on: `capture start --foreground
/// --continue-interrupted` runs as capture-record.service does, with the packaged keys
/// (`ride.detect: auto`), on a fake IIO accelerometer and a GNSS receiver on a pty; the timer's
/// `capture sync` runs once a trip; at the trip's end (and inside some rides) the power goes:
/// every capture process is SIGKILLed by pid. Every boot's clock is off by hours or days (Debian's
/// `faketime`) until the receiver's fixes correct it; the collector is down for whole days.
///
/// Time is compressed twice, honestly: between trips the box is off, so the clock jumps (each
/// boot's `faketime` starts at its trip's moment plus its offset); while it is on, time runs at
/// its real rate, with `ride.end_after_still` 3 s and `ride.pre_roll` 2 s (config keys) so that
/// a trip takes seconds. Checks (``MonthChecks``): every ride that moved is delivered exactly once,
/// as its own measurement or its parts, with its fixes from first motion (less the pre-roll) to
/// last motion; nothing committed is lost; nothing of standing only is delivered; the store stays
/// within its budget; each ride's delivery delay is measured.
struct Month {
    let context: Context
    let days: Int
    let mostTrips: Int
    static let endAfterStill: Int64 = 3_000
    static let preRoll: Int64 = 2_000
    /// What a power cut may lose: one flush interval (1 s) and its allowance (see docs/faults.md),
    /// plus the epoch's way through the pty.
    static let lossWindow: Int64 = 2_000
    /// The store's budget: the store of the first rides (about 110 KiB, most of it one page per
    /// table and index) and what may wait unsent at once, with room to spare: rides are 4–6 KiB
    /// (measured), a day has at most six trips of two rides, the collector is down at most two days
    /// in a row, and the sync's backoff (up to 7.2 h, on clocks off by hours) can keep the next
    /// day's rides waiting too: 36 rides, 216 KiB. With `drop_unsent: never` a budget smaller than
    /// that must stop the recording (exit 73) on some seeds (seed 33 did with 192 KiB, up to 24 rides
    /// waiting): a configuration fault, not the recorder's. A month records far more (about 150
    /// rides), so delivered rides must still be pruned to make room.
    static let budget: Int64 = 336 * 1024
    /// Rides the budget holds beyond the first (5 KiB each): a run that records fewer than twice
    /// this need not prune.
    static let budgetRides = 44

    func run() throws -> Tally {
        let tally = Tally("a month in the field (\(days) d), nobody at a shell")
        try Week.requireFaketime()
        let root = try context.directory("month")
        let data = root + "/data"
        let box = try MonthBox(root: root + "/box")
        let plan = MonthPlan.make(days: days, mostTrips: mostTrips, context: context)
        var collector = try CollectorRun(context: context, arguments: [], restartable: true)
        defer { collector.stop() }
        // The packaged configuration (dist/config.example.yaml) with the test collector, the box's
        // devices, a budget, and the two ride keys that compress time.
        let config = root + "/config.yaml"
        try (collector.deliveryConfiguration(in: root, budget: Self.budget) + """
            capture: { sources: [\(box.sources.joined(separator: ", "))], modality: BICYCLE, flush_interval: 1s }
            ride: { detect: auto, resume_within: 2m, end_after_still: 3s, pre_roll: 2s, min_distance: 50m, max_duration: 12h }

            """).write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["-i", "PATH=/usr/bin:/bin", "HOME=\(root)/home", "CAPTURE_CONFIG=\(config)", "CAPTURE_HOME=\(data)"]
        var truth = MonthTruth()
        var checks = MonthChecks(tally: tally, data: data, budget: Self.budget, minDistance: 50)
        var up = true
        var boots = 0
        var syncs: [Int32] = []

        /// A command of the box under faketime, its clock at `trueTime + offset`.
        func spawn(_ arguments: [String], at boxTime: Int64) throws -> Child {
            Week.sweepFaketimeLeftovers()
            context.log("[\(Week.iso(boxTime)) on the box] capture \(arguments.joined(separator: " "))")
            return try Child(
                "/usr/bin/env",
                environment + [Week.faketime, "--exclude-monotonic", "-f", "@" + Week.faketimeText(boxTime), context.capture] + arguments,
                directory: context.work, name: context.outputName(arguments.first ?? "capture"))
        }
        func setCollector(up shouldBeUp: Bool) throws {
            guard shouldBeUp != up else { return }
            if shouldBeUp { collector = try CollectorRun(context: context, arguments: [], continuing: collector) } else { collector.stop() }
            up = shouldBeUp
        }

        /// One power-on: boots at true time `start`, plays `legs` from `first` (its first
        /// `skip` seconds already played), runs the timer's sync at `syncAfter` seconds (every
        /// boot: the timer fires after boot), and cuts the power. Returns where a cut inside a
        /// leg left off, and the true time then.
        func boot(at start: Int64, legs: [MonthPlan.Leg], from first: Int, skip: Int, syncAfter: Int, drain: Bool)
            throws -> (leg: Int, skip: Int, off: Int64, at: Int64)?
        {
            boots += 1
            let offset = MonthPlan.clockOffset(context)
            // Whole seconds: faketime takes its start to the second.
            let boxStart = (start + offset) / 1000 * 1000
            let realStart = Clock.wallMilliseconds()
            let trueShift = start - realStart
            let tty = try box.powerOn(shift: boxStart - realStart)
            defer { tty.close() }
            let recorder = try spawn(["start", "--foreground", "--continue-interrupted", "--sysfs-root", box.root], at: boxStart)
            var sync: Child?
            var result: (leg: Int, skip: Int, off: Int64, at: Int64)?
            var epochs = 0
            var second = 0
            let began = Clock.now()
            func trueNow() -> Int64 { (Clock.wallMilliseconds() + trueShift) / 10 * 10 }
            func finishSync(cut: Bool) throws {
                guard let running = sync else { return }
                if cut { running.cut() } else { _ = running.wait(seconds: 60) }
                // A pass the power cut is no outcome.
                if let status = running.poll(), !cut || status < 128 {
                    let outcome = Outcome(status: status, stdout: running.stdout, stderr: running.stderr)
                    syncs.append(status)
                    tally.check([0, 75].contains(status), "capture sync at \(Week.iso(trueNow())): \(outcome.summary)")
                    if drain, status == 0, outcome.object["decision"] as? String == "nothing-waiting" { checks.drained = true }
                }
                sync = nil
                try checks.noteDeliveries(collector, at: trueNow())
            }
            legs: for index in first..<legs.count {
                let leg = legs[index]
                box.moving.store(leg.moving, ordering: .relaxed)
                for tick in (index == first ? skip : 0)..<leg.seconds {
                    if let cut = leg.cut, tick == cut.after, !(index == first && skip > 0) {
                        result = (index, tick, cut.off, trueNow())
                        break legs
                    }
                    Clock.sleep(began + Double(second) - Clock.now())
                    let now = trueNow()
                    let fix = epochs >= MonthBox.epochsWithoutFix
                    tty.write(box.epoch(at: now, fix: fix))
                    truth.note(now, moving: leg.moving, fix: fix, endAfterStill: Self.endAfterStill)
                    epochs += 1
                    second += 1
                    if second == syncAfter { sync = try spawn(["sync", "--json"], at: boxStart + Int64(second) * 1000) }
                    if let running = sync, running.poll() != nil { try finishSync(cut: false) }
                    if let status = recorder.poll() {
                        let outcome = Outcome(status: status, stdout: "", stderr: recorder.stderr)
                        tally.check(false, "the recorder ended by itself at \(Week.iso(now)): \(outcome.summary)")
                        break legs
                    }
                }
            }
            if drain { try finishSync(cut: false) }
            // The power goes.
            let cutAt = trueNow()
            recorder.cut()
            try finishSync(cut: true)
            box.powerOff()
            truth.cut(at: cutAt, window: Self.lossWindow, endsRide: result == nil)
            try checks.afterCut(at: cutAt, collector: collector)
            if let result { return (result.leg, result.skip, result.off, cutAt) }
            return nil
        }

        for (number, trip) in plan.trips.enumerated() {
            try setCollector(up: trip.collectorUp)
            context.log("trip \(number + 1) of \(plan.trips.count) at \(Week.iso(trip.start)), collector \(trip.collectorUp ? "up" : "down")")
            var left = try boot(at: trip.start, legs: trip.legs, from: 0, skip: 0, syncAfter: trip.syncAfter, drain: false)
            while let cut = left {
                left = try boot(at: cut.at + cut.off, legs: trip.legs, from: cut.leg, skip: cut.skip, syncAfter: 2, drain: false)
            }
        }
        // The month is over; the box is used for short stops every six hours with the collector
        // up (parked: nothing to record), and the timer runs to its end each time, until nothing waits.
        try setCollector(up: true)
        var time = MonthPlan.begin + Int64(days) * MonthPlan.day + 6 * MonthPlan.hour
        var passes = 0
        while !checks.drained, passes < 12 {
            _ = try boot(at: time, legs: [MonthPlan.Leg(seconds: 3, moving: false)], from: 0, skip: 0, syncAfter: 2, drain: true)
            passes += 1
            time += 6 * MonthPlan.hour
        }
        tally.check(checks.drained, "after \(passes) passes of the timer with the collector up, rides still wait")
        try checks.finish(
            truth: truth, collector: collector, preRoll: Self.preRoll, endAfterStill: Self.endAfterStill,
            mustPrune: truth.rides.count > 2 * Self.budgetRides)
        tally.runs = truth.rides.count
        tally.check(!syncs.isEmpty && syncs.contains(75), "no pass of the timer found the collector down (\(syncs.count) passes)")
        let midRide = plan.trips.filter { $0.legs.contains { $0.cut != nil } }.count
        tally.worst = "\(plan.trips.count) trips, \(truth.rides.count) rides, \(boots) boots (\(midRide) cut mid-ride); "
            + checks.figures + "; collector down \(plan.downDays.count) of \(days) days"
        Week.sweepFaketimeLeftovers()
        return tally
    }
}
