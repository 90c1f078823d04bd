import CaptureCore
import CaptureStorage
import Foundation
import Glibc

/// Power cuts, not `kill -9`: runs capture under the powercut shim, turns its journal into the
/// states a cut could leave (``CrashStates``), and boots each as the box would.
///
/// Scenarios (docs/faults.md, "Power cuts"):
/// * **live**: a store with one replayed ride; `capture start` (trace, staged commits), `pause`,
///   `resume`, `modality`, `stop` (every other run with a reader holding the store meanwhile:
///   the events wait in the flush log). Per cut: the store opens and passes `integrity_check`; the
///   earlier ride is whole; the new one holds no more than a `kill -9` at the same moment would
///   leave and at most one flush interval (plus the allowance) less; `capture stop` finishes it
///   without changing what is stored.
/// * **upload**: two finished rides, no transfer file cached; `capture upload` (serialising
///   into the cache, then sending). Per cut: the store passes
///   `integrity_check`; `capture upload` succeeds against the same collector; the collector
///   holds each ride exactly once, byte-identical to `capture export`.
/// * **login** (`PowerCuts+Login.swift`): `capture sync` refreshing a device login.
struct PowerCuts {
    let context: Context
    /// The built shim (`libpowercut.so`).
    let shim: String
    let flushInterval: Double
    /// Milliseconds beyond one flush interval a cut may lose (as for the kills).
    let allowance: Int64

    /// What the cuts found, over all scenarios.
    final class Figures {
        var states = 0
        var bytesLost = 0
        var worstLoss = 0
        var allowed = 0
        /// Login cuts that left the old login, and the new one.
        var oldLogin = 0
        var newLogin = 0
        /// Cuts counted by what they hit (a scenario's own figures).
        var counts: [String: Int] = [:]
    }

    /// Builds the shim from `source` into the work directory with the C compiler.
    static func buildShim(source: String, context: Context) throws -> String {
        let output = context.work + "/libpowercut.so"
        let compiler = ProcessInfo.processInfo.environment["CC"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/usr/bin/cc"
        let child = try Child(
            compiler, ["-O2", "-Wall", "-shared", "-fPIC", "-o", output, source], directory: context.work, name: "cc-powercut")
        guard child.wait(seconds: 120) == 0 else { throw CampaignError("cannot build the powercut shim: \(child.stderr)") }
        return output
    }

    /// Runs `cuts` cuts: two in ten during live recording, one in ten near its lifecycle
    /// commands, two in ten during the packaged box's recording of rides by motion, one in ten
    /// during the flush log's replay after a cut, one in ten during an upload (serialising, then
    /// sending), one in ten during `capture sync` with pruning, one in ten during a login
    /// refresh, the rest during `capture import` and `capture attach`.
    func run(cuts: Int) throws -> [Tally] {
        let control = Tally("power cut, the simulator itself")
        try runControl(tally: control)
        control.worst = "an unsynced truncate, write, mkdir and rename undone; a kill -9 keeps them"
        let share = { (tenths: Int) in cuts * tenths / 10 }
        let liveCuts = max(1, share(2))
        let (lifecycleCuts, ridesCuts, replayCuts, uploadCuts, syncCuts, loginCuts) = (
            share(1), share(2), share(1), share(1), share(1), share(1)
        )
        let importCuts = cuts - liveCuts - lifecycleCuts - ridesCuts - replayCuts - uploadCuts - syncCuts - loginCuts
        var tallies = [control]
        func scenario(_ name: String, cuts: Int, _ body: (Int, Tally, Figures) throws -> Void, worst: (Figures) -> String) rethrows {
            guard cuts > 0 else { return }
            let tally = Tally(name)
            let figures = Figures()
            try body(cuts, tally, figures)
            tally.worst = "\(figures.states) states; " + worst(figures) + "; \(figures.bytesLost / 1024) KiB of unsynced writes dropped or torn"
            tallies.append(tally)
        }
        let live = Tally("power cut, live recording")
        let lifecycle = Tally("power cut, a lifecycle command")
        let liveFigures = Figures()
        let lifecycleFigures = Figures()
        try runLive(
            cuts: liveCuts, tally: live, lifecycleCuts: lifecycleCuts, lifecycle: lifecycle, figures: liveFigures,
            lifecycleFigures: lifecycleFigures)
        for (tally, figures) in [(live, liveFigures), (lifecycle, lifecycleFigures)] where tally.runs > 0 {
            tally.worst =
                "\(figures.states) states; max \(figures.worstLoss) samples lost vs kill -9 at the same step, "
                + "\(figures.allowed) allowed (\(format(flushInterval)) s flush + \(allowance) ms)"
                + (tally === lifecycle ? "; a command's event there once it returned (\(figures.counts["returned", default: 0]) cuts), never before it was sent (\(figures.counts["before", default: 0]))" : "")
                + "; \(figures.bytesLost / 1024) KiB of unsynced writes dropped or torn"
            tallies.append(tally)
        }
        let eio = Tally("power cut, fdatasync EIO")
        try runSyncFailure(tally: eio)
        eio.worst = "the flush log's 3rd fdatasync fails: the recorder stops, nothing it committed depends on it"
        tallies.append(eio)
        try scenario("power cut, rides by motion, booted by the unit", cuts: ridesCuts, runRides) {
            "\($0.counts["continued", default: 0]) rides continued, \($0.counts["ended by power", default: 0]) ended by power, "
                + "\($0.counts["discarded", default: 0]) short ones discarded as still, \($0.counts["before the store", default: 0]) before the store; "
                + "no committed fix of a ride that moved lost"
        }
        try scenario("power cut, the flush log's replay", cuts: replayCuts, runReplay) {
            "every flushed sample there after the next boot (max \($0.worstLoss) lost, 0 allowed)"
        }
        try scenario("power cut, capture upload", cuts: uploadCuts, runUpload) {
            "\($0.counts["serialising", default: 0]) while serialising; every ride stored once"
        }
        try scenario("power cut, capture sync with pruning", cuts: syncCuts, runSync) {
            "\($0.counts["pruned", default: 0]) with a ride pruned, \($0.counts["serialising", default: 0]) while serialising; every ride stored once, pruned after the next pass, no file of it left"
        }
        try scenario("power cut, capture import and attach", cuts: importCuts, runImport) { _ in
            "the ride there whole or not at all, never twice"
        }
        try scenario("power cut, a login refresh", cuts: loginCuts, runLogin) {
            "login.json the old login (\($0.oldLogin)) or the new (\($0.newLogin)), the next sync works with it"
        }
        return tallies
    }

    /// `capture doctor` once the box has booted: no check fails (exit 0). The sources are the
    /// trace, only opened, so that what can fail is the data directory, the store, a measurement
    /// left open, the disk and, where `environment` configures them, the collector and the login.
    func checkDoctor(_ directory: String, label: String, tally: Tally, environment: [String] = []) {
        do {
            let doctor = try context.capture(
                ["doctor", "--json", "--seconds", "0"], dataDirectory: directory,
                environment: ["CAPTURE_CAPTURE_SOURCES=trace:" + context.trace] + environment)
            let failed = (doctor.object["checks"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "fail" }
                .map { "\($0["check"] ?? "?"): \($0["detail"] ?? "")" }
            tally.check(
                doctor.status == 0, "\(label): capture doctor: \(failed.isEmpty ? doctor.summary : failed.joined(separator: "; "))")
        } catch {
            tally.check(false, "\(label): capture doctor: \(error)")
        }
    }

    /// The simulator's own check: `sh` overwrites a file in place, makes a directory with a
    /// file and renames the first file, syncing nothing. A `kill -9` state holds all of it; the
    /// synced-only state none of it (the old file as it was).
    private func runControl(tally: Tally) throws {
        tally.runs += 1
        let data = try context.directory("power-control")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: data + "/plain"))
        let snapshot = try DirectorySnapshot(root: data)
        let journal = context.work + "/power-control.journal"
        let child = try Child(
            "/bin/sh", ["-c", "cd \"$0\" && printf 'new\\n' > plain && mkdir sub && printf x > sub/y && mv plain renamed", data],
            directory: context.work, name: "control-sh", extraEnvironment: environment(root: data, journal: journal))
        tally.check(child.wait(seconds: 30) == 0, "sh under the shim: \(child.stderr)")
        let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
        let killed = states.state(cut: states.stepCount, mode: .killed, random: &context.random)
        tally.check(
            killed.files == ["renamed": Array("new\n".utf8), "sub/y": Array("x".utf8)] && killed.directories == ["sub"],
            "kill -9 state: \(killed.files.keys.sorted()), \(killed.directories)")
        let synced = states.state(cut: states.stepCount, mode: .syncedOnly, random: &context.random)
        tally.check(
            synced.files == ["plain": Array("old\n".utf8)] && synced.directories.isEmpty,
            "synced-only state: \(synced.files.mapValues { String(decoding: $0, as: UTF8.self) }), \(synced.directories)")
    }

    /// A new data directory named after `name` holding the ride `ride` (a trace), replayed: the
    /// directory and the ride's measurement.
    func storeWithRide(_ name: String, ride: String) throws -> (directory: String, ride: Int64) {
        let data = try context.directory(name)
        let replayed = try context.capture(["replay", ride, "--json"], dataDirectory: data, timeout: 300)
        guard replayed.status == 0, let id = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
            throw CampaignError("capture replay: \(replayed.summary)")
        }
        return (data, id)
    }

    /// A new data directory named after `name` holding the ride at `ridePath`
    /// (``storeWithRide(_:ride:)``), its counts and a snapshot, then a recorder started there on
    /// the trace (`options` added) under the shim, journalling into `journal`, with the
    /// environment that does so; `nil` when the start failed (a failed check of `tally`, named
    /// after `label`).
    func startUnderShim(
        _ name: String, ride ridePath: String, journal: String, options: [String] = [], label: String, tally: Tally
    ) throws -> (data: String, ride: Int64, rideCounts: SampleCounts, snapshot: DirectorySnapshot, environment: [String])? {
        let (data, ride) = try storeWithRide(name, ride: ridePath)
        let rideCounts = try Store.inspect(data) { try $0.counts(of: ride) }
        let snapshot = try DirectorySnapshot(root: data)
        let underShim = environment(root: data, journal: journal)
        let started = try context.capture(
            ["start", "--json", "--flush-interval", format(flushInterval)] + options + ["--source", "trace:" + context.trace],
            dataDirectory: data, environment: underShim)
        guard tally.check(started.status == 0, "\(label): capture start under the shim: \(started.summary)") else { return nil }
        return (data, ride, rideCounts, snapshot, underShim)
    }

    /// The environment that puts a command under the shim, journalling into `journal`.
    func environment(root: String, journal: String) -> [String] {
        ["LD_PRELOAD=" + shim, "POWERCUT_ROOT=" + root, "POWERCUT_JOURNAL=" + journal]
    }

    /// Builds the state after `cut` steps into `<work>/<name>-<run>`, counts it, and runs
    /// `checks` on it; the directory is removed unless a check failed.
    func onState(
        _ states: CrashStates, cut: Int, mode: CrashStates.Mode, name: String, tally: Tally, figures: Figures,
        _ checks: (String) throws -> Void
    ) throws {
        let state = states.state(cut: cut, mode: mode, random: &context.random)
        figures.states += 1
        figures.bytesLost += state.bytesLost
        let directory = context.work + "/\(name)-\(tally.runs)"
        try state.materialize(into: directory)
        let failures = tally.failures.count
        defer {
            if tally.failures.count == failures {
                try? FileManager.default.removeItem(atPath: directory)
            } else {
                context.log("kept \(directory)")
            }
        }
        try checks(directory)
    }

    /// Cuts `states` at each of `points`, one run of `tally` each, labelled "`name` cut N at step
    /// S of T": ``onState(_:cut:mode:name:tally:figures:_:)`` with `checks`, given the state's
    /// directory and that label; an error fails the run.
    func cutEach(
        _ points: [Int], of states: CrashStates, name: String, tally: Tally, figures: Figures,
        _ checks: (_ directory: String, _ label: String) throws -> Void
    ) {
        for cut in points {
            tally.runs += 1
            let label = "\(name) cut \(tally.runs) at step \(cut) of \(states.stepCount)"
            do {
                try onState(states, cut: cut, mode: .powerCut, name: "power-\(name)-cut", tally: tally, figures: figures) {
                    try checks($0, label)
                }
            } catch {
                tally.check(false, "\(label): \(error)")
            }
        }
    }

    /// Points to cut at: half anywhere, half right before a sync (its writes done, not yet durable).
    func cutPoints(_ count: Int, states: CrashStates) -> [Int] {
        let syncs = states.syncPoints
        return (0..<count).map { index in
            if index % 2 == 1, !syncs.isEmpty { return syncs[context.integer(0..<syncs.count)] }
            return context.integer(0..<(states.stepCount + 1))
        }
    }

    /// Every attachment the store records has its file, and the file is whole: a JSONL file is
    /// lines that each parse (after the upload's cut of a torn last line, which must take at
    /// most that one line), JSON parses, a JPG starts like one.
    func checkAttachments(_ directory: String, label: String, tally: Tally) {
        do {
            let attachments = try Store.inspect(directory) { store in
                try store.measurements().flatMap { try store.attachments(of: $0.id) }
            }
            for attachment in attachments {
                let path = attachment.path(in: directory)
                let name = "attachments/\(attachment.measurement)/\(attachment.name)"
                guard tally.check(FileManager.default.fileExists(atPath: path), "\(label): \(name) is recorded, but its file is gone"),
                    let found = FileManager.default.contents(atPath: path)
                else { continue }
                var bytes = found
                if attachment.format == .jsonl {
                    AttachmentFile.cutTornLastLine(path)
                    bytes = FileManager.default.contents(atPath: path) ?? Data()
                    let cut = found.dropFirst(bytes.count)
                    tally.check(
                        found.starts(with: bytes) && cut.dropLast().filter { $0 == 0x0A }.isEmpty,
                        "\(label): \(name): the cut of a torn last line took more (\(found.count) → \(bytes.count) bytes)")
                }
                let whole: Bool
                switch attachment.format {
                case .jsonl:
                    whole = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().allSatisfy {
                        (try? JSONSerialization.jsonObject(with: Data($0))) != nil
                    } && (bytes.isEmpty || bytes.last == 0x0A)
                case .json: whole = (try? JSONSerialization.jsonObject(with: bytes)) != nil
                case .jpg: whole = bytes.starts(with: [0xFF, 0xD8])
                case .csv: whole = !bytes.contains(0)
                }
                tally.check(whole, "\(label): \(name) is damaged (\(bytes.count) bytes)")
            }
        } catch {
            tally.check(false, "\(label): reading the attachments: \(error)")
        }
    }

    // MARK: - fdatasync fails

    /// The medium fails a sync: the third `fdatasync` of the flush log returns EIO (through the
    /// shim, which does not sync). The recorder must not go on as if the flush were safe: it
    /// stops on its own, writing what it holds in memory to the database, and nothing it
    /// reported committed may depend on the failed sync. Checks: the recorder is gone within
    /// 10 s; `capture status` says interrupted; `capture stop` finishes it; the synced-only state
    /// afterwards (the failed sync's writes never durable) holds what the store holds.
    func runSyncFailure(tally: Tally) throws {
        tally.runs += 1
        let (data, _) = try storeWithRide("power-eio", ride: context.work + "/power-ride.trace")
        let snapshot = try DirectorySnapshot(root: data)
        let journal = context.work + "/power-eio.journal"
        let env = environment(root: data, journal: journal) + ["POWERCUT_FAIL_SYNC=capture.flushlog:3"]
        let started = try context.capture(
            ["start", "--json", "--flush-interval", format(flushInterval), "--source", "trace:" + context.trace],
            dataDirectory: data, environment: env)
        guard tally.check(started.status == 0, "fdatasync EIO: capture start: \(started.summary)"),
            let pid = (started.object["pid"] as? NSNumber)?.int32Value
        else { return }
        let gone = context.waitFor(10 + 3 * flushInterval) { isGone(pid) }
        if !gone { kill(pid, SIGKILL) }
        tally.check(gone, "fdatasync EIO: the recorder went on after its flush log's fdatasync failed")
        let log = (try? String(contentsOfFile: data + "/recorder.log", encoding: .utf8)) ?? ""
        tally.check(
            log.contains("capture.flushlog failed: Input/output error; what it held is not on the medium"),
            "fdatasync EIO: recorder.log does not say why: \(log.suffix(300))")
        let status = try context.capture(["status", "--json"], dataDirectory: data, environment: env)
        tally.check(status.object["state"] as? String == "interrupted", "fdatasync EIO: capture status: \(status.stdout)")
        let stop = try context.capture(["stop", "--json"], dataDirectory: data, environment: env)
        tally.check(stop.status == 0, "fdatasync EIO: capture stop: \(stop.summary)")
        let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
        checkEnd(of: states, data: data, run: -1, tally: tally)
    }
}
