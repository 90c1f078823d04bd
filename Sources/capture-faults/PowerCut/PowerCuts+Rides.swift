import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation
import Glibc

extension PowerCuts {
    /// `ride.min_distance` of the rides scenario, metres: one epoch of the box's travel (15 m,
    /// ``MonthBox/speed``) is less, three are more.
    static let ridesMinDistance = 30.0

    /// The box as it is packaged, cut (issue 41, item 5): the unit's command
    /// (`capture start --foreground --continue-interrupted`) with `ride.detect: auto` on the
    /// month's fake accelerometer and pty receiver, under the shim, while the world stands, rides
    /// (a ride ended by standing), is pushed a few metres (a ride discarded as still), and rides
    /// again until SIGTERM ends it: the flush log holds rides' begins under reserved ids, their
    /// ends with their counts and a discard. Each cut boots with the unit's command, every
    /// other one within `ride.resume_within` (the ride continues) and the rest after it (the
    /// ride ends by power), then SIGTERM. Per cut: `integrity_check` before and after the boot;
    /// nothing open after it; every measurement the cut left is there after the boot with at
    /// least its fixes, unless its fixes came less than `ride.min_distance` in all (then it is
    /// discarded as still, and counted); `capture doctor` passes.
    func runRides(cuts: Int, tally: Tally, figures: Figures) throws {
        let root = try context.directory("power-rides")
        let box = try MonthBox(root: root + "/box")
        let data = root + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let config = root + "/config.yaml"
        try """
            capture: { sources: [\(box.sources.joined(separator: ", "))], modality: BICYCLE, flush_interval: \(format(flushInterval))s }
            ride: { detect: auto, resume_within: 2m, end_after_still: 2s, pre_roll: 1s, min_distance: \(Int(Self.ridesMinDistance))m }

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let unit = ["start", "--foreground", "--continue-interrupted", "--sysfs-root", box.root]
        let snapshot = try DirectorySnapshot(root: data)
        let journal = context.work + "/power-rides.journal"
        let tty = try box.powerOn(shift: 0)
        let recorder = try context.spawnCapture(
            unit, dataDirectory: data, environment: ["CAPTURE_CONFIG=" + config] + environment(root: data, journal: journal))
        // One receiver epoch a second, as the month's box sends them.
        func play(_ seconds: Int, moving: Bool) {
            box.moving.store(moving, ordering: .relaxed)
            for _ in 0..<seconds {
                tty.write(box.epoch(at: Clock.wallMilliseconds() / 10 * 10, fix: true))
                usleep(1_000_000)
            }
        }
        play(3, moving: false)
        play(5, moving: true)
        play(5, moving: false)
        play(1, moving: true)
        play(5, moving: false)
        play(5, moving: true)
        recorder.stop(grace: 20)
        tty.close()
        box.powerOff()
        guard tally.check(recorder.wait() == 0, "rides: the recorder under the shim: exit \(recorder.wait()): \(recorder.stderr.suffix(400))")
        else { return }
        let counts = try Store.inspect(data) { try $0.rideCounts() }
        tally.check(
            counts[.begunByMotion] == 3 && counts[.discardedAsStill] == 1 && counts[.endedByMotion] == 2,
            "rides: the run recorded \(counts), not 3 rides begun by motion, 2 ended by it, 1 discarded as still")
        let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
        for cut in cutPoints(cuts, states: states) {
            tally.runs += 1
            try checkRides(cut: cut, of: states, box: box, config: config, unit: unit, tally: tally, figures: figures)
        }
    }

    /// One cut of ``runRides(cuts:tally:figures:)``.
    private func checkRides(
        cut: Int, of states: CrashStates, box: MonthBox, config: String, unit: [String], tally: Tally, figures: Figures
    ) throws {
        let continues = tally.runs % 2 == 0
        let label = "rides cut \(tally.runs) at step \(cut) of \(states.stepCount), booted \(continues ? "within" : "after") resume_within"
        try onState(states, cut: cut, mode: .powerCut, name: "power-rides-cut", tally: tally, figures: figures) { directory in
            try bootRides(directory, label: label, continues: continues, box: box, config: config, unit: unit, tally: tally, figures: figures)
        }
    }

    /// Checks what a cut of ``runRides(cuts:tally:figures:)`` left in `directory`, boots it with
    /// the unit's command (`continues`: within `ride.resume_within`) and checks it again.
    private func bootRides(
        _ directory: String, label: String, continues: Bool, box: MonthBox, config: String, unit: [String], tally: Tally,
        figures: Figures
    ) throws {
        guard FileManager.default.fileExists(atPath: directory + "/capture.sqlite") else {
            figures.counts["before the store", default: 0] += 1
            return
        }
        /// Every measurement: its fixes, how far they came, and whether it is open.
        func look() throws -> (integrity: String, rides: [Int64: (fixes: Int, metres: Double)], open: [Int64]) {
            try Store.inspect(directory) { store in
                var rides: [Int64: (fixes: Int, metres: Double)] = [:]
                for measurement in try store.measurements() {
                    var travel = RideTravel()
                    var fixes = 0
                    try store.forEachFix(of: measurement.id) {
                        travel.pass($0)
                        fixes += 1
                    }
                    rides[measurement.id] = (fixes, travel.metres)
                }
                return (try store.integrityCheck(), rides, try store.measurements().filter(\.isOpen).map(\.id))
            }
        }
        let before = try look()
        tally.check(before.integrity == "ok", "\(label): integrity_check: \(before.integrity)")
        // The box boots as capture-record.service starts it, then is stopped as systemd stops it.
        if !continues { usleep(1_200_000) }
        let tty = try box.powerOn(shift: 0)
        defer {
            tty.close()
            box.powerOff()
        }
        let booted = try context.spawnCapture(
            unit, dataDirectory: directory,
            environment: ["CAPTURE_CONFIG=" + config, "CAPTURE_RIDE_RESUME_WITHIN=" + (continues ? "2m" : "1s")])
        let up = context.waitFor(20) {
            (try? context.capture(["status", "--json"], dataDirectory: directory))?.object["recorder"] != nil
        }
        booted.stop(grace: 20)
        tally.check(up && booted.wait() == 0, "\(label): the unit's command: up \(up), exit \(booted.wait()): \(booted.stderr.suffix(300))")
        let after = try look()
        tally.check(after.integrity == "ok", "\(label): integrity_check after the boot: \(after.integrity)")
        tally.check(after.open.isEmpty, "\(label): open after the boot and its stop: \(after.open)")
        for (id, ride) in before.rides.sorted(by: { $0.key < $1.key }) {
            if let kept = after.rides[id] {
                tally.check(kept.fixes >= ride.fixes, "\(label): measurement \(id) held \(ride.fixes) fixes, \(kept.fixes) after the boot")
            } else if ride.metres < Self.ridesMinDistance {
                figures.counts["discarded", default: 0] += 1
            } else {
                tally.check(false, "\(label): measurement \(id), \(Int(ride.metres)) m in \(ride.fixes) fixes, gone after the boot")
            }
        }
        figures.counts[continues ? "continued" : "ended by power", default: 0] += before.open.isEmpty ? 0 : 1
        checkDoctor(directory, label: label, tally: tally)
    }
}
