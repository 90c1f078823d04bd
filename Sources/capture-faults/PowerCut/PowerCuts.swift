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

    /// Runs `cuts` cuts: half during live recording, three in ten during an upload, one in ten
    /// during a login refresh, the rest during `capture import` and `capture attach`.
    func run(cuts: Int) throws -> [Tally] {
        let control = Tally("power cut, the simulator itself")
        try runControl(tally: control)
        let live = Tally("power cut, live recording")
        let upload = Tally("power cut, capture upload")
        let importing = Tally("power cut, capture import and attach")
        let liveFigures = Figures()
        let uploadFigures = Figures()
        let importFigures = Figures()
        let liveCuts = max(1, cuts / 2)
        let uploadCuts = cuts * 3 / 10
        let loginCuts = cuts / 10
        let importCuts = cuts - liveCuts - uploadCuts - loginCuts
        try runLive(cuts: liveCuts, tally: live, figures: liveFigures)
        let eio = Tally("power cut, fdatasync EIO")
        try runSyncFailure(tally: eio)
        if uploadCuts > 0 { try runUpload(cuts: uploadCuts, tally: upload, figures: uploadFigures) }
        if importCuts > 0 { try runImport(cuts: importCuts, tally: importing, figures: importFigures) }
        let login = Tally("power cut, a login refresh")
        let loginFigures = Figures()
        if loginCuts > 0 { try runLogin(cuts: loginCuts, tally: login, figures: loginFigures) }
        live.worst =
            "\(liveFigures.states) states; max \(liveFigures.worstLoss) samples lost vs kill -9 at the same step, "
            + "\(liveFigures.allowed) allowed (\(format(flushInterval)) s flush + \(allowance) ms); "
            + "\(liveFigures.bytesLost / 1024) KiB of unsynced writes dropped or torn"
        upload.worst =
            "\(uploadFigures.states) states; every ride stored once; \(uploadFigures.bytesLost / 1024) KiB of unsynced writes dropped or torn"
        importing.worst =
            "\(importFigures.states) states; the ride there whole or not at all, never twice; \(importFigures.bytesLost / 1024) KiB of unsynced writes dropped or torn"
        control.worst = "an unsynced truncate, write, mkdir and rename undone; a kill -9 keeps them"
        eio.worst = "the flush log's 3rd fdatasync fails: the recorder stops, nothing it committed depends on it"
        login.worst =
            "\(loginFigures.states) states; login.json the old login (\(loginFigures.oldLogin)) or the new (\(loginFigures.newLogin)), "
            + "the next sync works with it; "
            + "\(loginFigures.bytesLost / 1024) KiB of unsynced writes dropped or torn"
        return [control, live, eio] + (uploadCuts > 0 ? [upload] : []) + (importCuts > 0 ? [importing] : [])
            + (loginCuts > 0 ? [login] : [])
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

    /// Points to cut at: half anywhere, half right before a sync (its writes done, not yet durable).
    func cutPoints(_ count: Int, states: CrashStates) -> [Int] {
        let syncs = states.syncPoints
        return (0..<count).map { index in
            if index % 2 == 1, !syncs.isEmpty { return syncs[context.integer(0..<syncs.count)] }
            return context.integer(0..<(states.stepCount + 1))
        }
    }

    // MARK: - Live recording

    private func runLive(cuts: Int, tally: Tally, figures: Figures) throws {
        let timeline = try TraceTimeline(path: context.trace)
        // The most samples the trace delivers in any one flush interval plus the allowance.
        let window = Int64((flushInterval * 1000).rounded()) + allowance
        let offsets = timeline.offsets
        let allowed = offsets.map { offsets.count(after: $0 - window, atOrBefore: $0) }.max() ?? 0
        figures.allowed = allowed
        let text = try TraceText(path: context.trace)
        let ridePath = context.work + "/power-ride.trace"
        try text.window(from: 0, length: 20_000).write(toFile: ridePath, atomically: false, encoding: .utf8)
        // Runs of the scenario, each journalled and cut a few times.
        let runs = max(1, min(cuts / 25, 8))
        var done = 0
        for run in 0..<runs {
            let data = try context.directory("power-live")
            let replayed = try context.capture(["replay", ridePath, "--json"], dataDirectory: data, timeout: 300)
            guard replayed.status == 0, let ride = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
                throw CampaignError("capture replay: \(replayed.summary)")
            }
            let reference = try Store.inspect(data) { try $0.counts(of: ride) }
            let snapshot = try DirectorySnapshot(root: data)
            let journal = context.work + "/power-live-\(run).journal"
            let env = environment(root: data, journal: journal)
            let started = try context.capture(
                ["start", "--json", "--flush-interval", format(flushInterval), "--modality", "BICYCLE", "--source", "trace:" + context.trace],
                dataDirectory: data, environment: env)
            guard tally.check(started.status == 0, "live run \(run): capture start under the shim: \(started.summary)") else { continue }
            // Every other run another process reads the store through the commands (issue 28,
            // item 5): their events wait in the flush log and go in once it lets go.
            let reader = try run % 2 == 0 ? nil : Child(
                "/usr/bin/sqlite3", [data + "/capture.sqlite", "BEGIN", "SELECT count(*) FROM event", ".shell sleep 8", "COMMIT"],
                directory: context.work, name: context.outputName("reader"))
            for (pause, command) in [(1.3, "pause"), (0.4, "resume"), (1.2, "modality"), (0.8, "stop")] {
                Clock.sleep(pause + context.uniform(0...0.3))
                let arguments = command == "modality" ? ["modality", "WALKING"] : [command]
                let outcome = try context.capture(arguments, dataDirectory: data, environment: env)
                tally.check(outcome.status == 0, "live run \(run): capture \(command) under the shim: \(outcome.summary)")
            }
            if let reader { tally.check(reader.wait(seconds: 30) == 0, "live run \(run): the reader: \(reader.stderr)") }
            let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
            checkEnd(of: states, data: data, run: run, tally: tally)
            let count = (cuts - done) / (runs - run)
            for cut in cutPoints(count, states: states) {
                tally.runs += 1
                checkLive(
                    cut: cut, of: states, ride: ride, reference: reference, allowed: allowed, tally: tally, figures: figures)
            }
            done += count
        }
    }

    /// After `capture stop` returned, everything it committed is durable: the state that holds
    /// only what was synced by then has every measurement finished with all its samples, and the
    /// recorder's log whole.
    private func checkEnd(of states: CrashStates, data: String, run: Int, tally: Tally) {
        let label = run < 0 ? "fdatasync EIO, only what was synced at the end" : "live run \(run), only what was synced at the end"
        do {
            let directory = context.work + "/power-synced-\(run)"
            try states.state(cut: states.stepCount, mode: .syncedOnly, random: &context.random).materialize(into: directory)
            let expected = try Store.inspect(data) { store in try store.measurements().map { try store.counts(of: $0.id) } }
            let (integrity, records, counts) = try Store.inspect(directory) { store in
                let records = try store.measurements()
                return (try store.integrityCheck(), records, try records.map { try store.counts(of: $0.id) })
            }
            tally.check(integrity == "ok", "\(label): integrity_check: \(integrity)")
            tally.check(records.allSatisfy { !$0.isOpen }, "\(label): a measurement is open: \(records.filter(\.isOpen).map(\.id))")
            tally.check(counts == expected, "\(label): counts \(counts), the recorder committed \(expected)")
            checkAttachments(directory, label: label, tally: tally)
        } catch {
            tally.check(false, "\(label): \(error)")
        }
    }

    private func checkLive(
        cut: Int, of states: CrashStates, ride: Int64, reference: SampleCounts, allowed: Int, tally: Tally, figures: Figures
    ) {
        let label = "live cut \(tally.runs) at step \(cut) of \(states.stepCount)"
        do {
            let crash = states.state(cut: cut, mode: .powerCut, random: &context.random)
            let killed = states.state(cut: cut, mode: .killed, random: &context.random)
            figures.states += 1
            figures.bytesLost += crash.bytesLost
            let crashDirectory = context.work + "/power-cut-\(tally.runs)"
            let killedDirectory = context.work + "/power-kill-\(tally.runs)"
            try crash.materialize(into: crashDirectory)
            try killed.materialize(into: killedDirectory)
            let failures = tally.failures.count
            defer {
                if tally.failures.count == failures {
                    try? FileManager.default.removeItem(atPath: crashDirectory)
                    try? FileManager.default.removeItem(atPath: killedDirectory)
                } else {
                    context.log("\(label): kept \(crashDirectory) and \(killedDirectory)")
                }
            }
            guard tally.check(crash.files["capture.sqlite"] != nil, "\(label): the store is gone") else { return }
            let killedCount = try Store.inspect(killedDirectory) { store in
                try store.measurements().filter { $0.id != ride }.reduce(0) { $0 + (try store.counts(of: $1.id).total) }
            }
            struct Seen {
                var integrity: String
                var ride: SampleCounts
                var newer: Int
                var open: [Int64]
            }
            func look() throws -> Seen {
                try Store.inspect(crashDirectory) { store in
                    let records = try store.measurements()
                    return Seen(
                        integrity: try store.integrityCheck(), ride: try store.counts(of: ride),
                        newer: try records.filter { $0.id != ride }.reduce(0) { $0 + (try store.counts(of: $1.id).total) },
                        open: records.filter(\.isOpen).map(\.id))
                }
            }
            let before = try look()
            tally.check(before.integrity == "ok", "\(label): integrity_check: \(before.integrity)")
            tally.check(before.ride == reference, "\(label): the earlier ride changed: \(reference) → \(before.ride)")
            tally.check(before.newer <= killedCount, "\(label): \(before.newer) samples, more than kill -9 leaves (\(killedCount))")
            let loss = killedCount - before.newer
            figures.worstLoss = max(figures.worstLoss, loss)
            tally.check(loss <= allowed, "\(label): \(loss) samples lost against kill -9 (\(killedCount)), \(allowed) allowed")
            // The box boots: an interrupted measurement is finished where its committed data ends.
            let stop = try context.capture(["stop", "--json"], dataDirectory: crashDirectory)
            tally.check(
                stop.status == 0 || (stop.status == 4 && before.open.isEmpty),
                "\(label): capture stop after the cut: \(stop.summary) (open: \(before.open))")
            let after = try look()
            tally.check(after.integrity == "ok", "\(label): integrity_check after stop: \(after.integrity)")
            tally.check(after.open.isEmpty, "\(label): still open after stop: \(after.open)")
            tally.check(after.newer == before.newer && after.ride == before.ride, "\(label): stop changed the counts")
            checkAttachments(crashDirectory, label: label, tally: tally)
        } catch {
            tally.check(false, "\(label): \(error)")
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
        let ridePath = context.work + "/power-ride.trace"
        let data = try context.directory("power-eio")
        let first = try context.capture(["replay", ridePath, "--json"], dataDirectory: data, timeout: 300)
        guard first.status == 0 else { throw CampaignError("capture replay: \(first.summary)") }
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

    // MARK: - Upload

    private func runUpload(cuts: Int, tally: Tally, figures: Figures) throws {
        let data = try context.directory("power-upload")
        let text = try TraceText(path: context.trace)
        var files: [Int64: Data] = [:]
        for (index, window) in [(0, 60_000), (120_000, 30_000)].enumerated() {
            let path = context.work + "/power-upload-\(index).trace"
            try text.window(from: Int64(window.0), length: Int64(window.1)).write(toFile: path, atomically: false, encoding: .utf8)
            let replayed = try context.capture(["replay", path, "--json"], dataDirectory: data, timeout: 300)
            guard replayed.status == 0, let id = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
                throw CampaignError("capture replay \(path): \(replayed.summary)")
            }
            let exported = context.work + "/power-upload-\(id).ccyf"
            let export = try context.capture(["export", String(id), "--format", "cyface", "-o", exported], dataDirectory: data)
            guard export.status == 0, let bytes = FileManager.default.contents(atPath: exported) else {
                throw CampaignError("capture export \(id): \(export.summary)")
            }
            files[id] = bytes
        }
        // The export filled the transfer cache: without it the upload serialises under the shim.
        try? FileManager.default.removeItem(atPath: data + "/transfer")
        let snapshot = try DirectorySnapshot(root: data)
        let collector = try CollectorRun(context: context, arguments: [])
        defer { collector.stop() }
        let journal = context.work + "/power-upload.journal"
        let options = ["--json", "--retry-budget", "60", "--chunk-size", "65536"] + collector.uploadArguments
        let first = try context.capture(["upload"] + options, dataDirectory: data, environment: environment(root: data, journal: journal))
        guard tally.check(first.status == 0, "capture upload under the shim: \(first.summary)") else { return }
        let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
        for cut in cutPoints(cuts, states: states) {
            tally.runs += 1
            let label = "upload cut \(tally.runs) at step \(cut) of \(states.stepCount)"
            do {
                try onState(states, cut: cut, mode: .powerCut, name: "power-upload-cut", tally: tally, figures: figures) { directory in
                    let integrity = try Store.inspect(directory) { try $0.integrityCheck() }
                    tally.check(integrity == "ok", "\(label): integrity_check: \(integrity)")
                    let again = try context.capture(["upload"] + options, dataDirectory: directory)
                    tally.check(again.status == 0, "\(label): capture upload after the cut: \(again.summary)")
                    try checkDelivered(files, to: collector, from: directory, label: label, tally: tally)
                }
            } catch {
                tally.check(false, "\(label): \(error)")
            }
        }
    }

    // MARK: - Import and attach

    /// `capture import` of a transfer file, then `capture attach` of a JSON file to it, into a
    /// store holding one ride. Per cut: `integrity_check`; the ride unchanged; the import there
    /// whole or not at all; every recorded attachment whole; then both commands run again: the
    /// import is refused as already there (65) or stored (0), the attach refused as a duplicate
    /// (65) or stored (0), and afterwards the ride is there exactly once with its attachment.
    private func runImport(cuts: Int, tally: Tally, figures: Figures) throws {
        let source = try context.directory("power-import-source")
        let text = try TraceText(path: context.trace)
        let tracePath = context.work + "/power-import.trace"
        try text.window(from: 60_000, length: 30_000).write(toFile: tracePath, atomically: false, encoding: .utf8)
        let replayed = try context.capture(["replay", tracePath, "--json"], dataDirectory: source, timeout: 300)
        guard replayed.status == 0, let sourceID = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
            throw CampaignError("capture replay: \(replayed.summary)")
        }
        let transfer = context.work + "/power-import.ccyf"
        let export = try context.capture(["export", String(sourceID), "--format", "cyface", "-o", transfer], dataDirectory: source)
        guard export.status == 0 else { throw CampaignError("capture export: \(export.summary)") }
        let notes = context.work + "/notes.json"
        try Data("{\"weather\": \"rain\", \"tyres\": [\"front\", \"rear\"]}\n".utf8).write(to: URL(fileURLWithPath: notes))

        let data = try context.directory("power-import")
        let ridePath = context.work + "/power-ride.trace"
        let first = try context.capture(["replay", ridePath, "--json"], dataDirectory: data, timeout: 300)
        guard first.status == 0, let ride = (first.object["measurement"] as? NSNumber)?.int64Value else {
            throw CampaignError("capture replay: \(first.summary)")
        }
        let snapshot = try DirectorySnapshot(root: data)
        let journal = context.work + "/power-import.journal"
        let env = environment(root: data, journal: journal)
        let imported = try context.capture(["import", transfer, "--json"], dataDirectory: data, environment: env)
        guard tally.check(imported.status == 0, "capture import under the shim: \(imported.summary)"),
            let id = (imported.object["measurement"] as? NSNumber)?.int64Value
        else { return }
        let attached = try context.capture(["attach", String(id), notes], dataDirectory: data, environment: env)
        guard tally.check(attached.status == 0, "capture attach under the shim: \(attached.summary)") else { return }
        let (rideCounts, importCounts) = try Store.inspect(data) { (try $0.counts(of: ride), try $0.counts(of: id)) }
        let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
        var points = cutPoints(cuts - 1, states: states)
        points.append(states.stepCount)  // after both returned, only what was synced
        for (index, cut) in points.enumerated() {
            tally.runs += 1
            let last = index == points.count - 1
            let label = last ? "import, only what was synced at the end" : "import cut \(tally.runs) at step \(cut) of \(states.stepCount)"
            do {
                try onState(states, cut: cut, mode: last ? .syncedOnly : .powerCut, name: "power-import-cut", tally: tally, figures: figures) {
                    directory in
                    let (integrity, counts) = try Store.inspect(directory) { store in
                        (try store.integrityCheck(), try store.measurements().map { try store.counts(of: $0.id) })
                    }
                    tally.check(integrity == "ok", "\(label): integrity_check: \(integrity)")
                    tally.check(
                        counts == [rideCounts] || counts == [rideCounts, importCounts],
                        "\(label): measurements \(counts); expected the ride \(rideCounts), then the import \(importCounts) whole or not at all")
                    if last {
                        tally.check(counts.count == 2, "\(label): the import that returned is gone")
                    }
                    checkAttachments(directory, label: label, tally: tally)
                    // The user runs both again.
                    let again = try context.capture(["import", transfer, "--json"], dataDirectory: directory)
                    tally.check(
                        again.status == 0 || (again.status == 65 && counts.count == 2),
                        "\(label): capture import again: \(again.summary)")
                    let after = try Store.inspect(directory) { store in try store.measurements().map { try store.counts(of: $0.id) } }
                    tally.check(after == [rideCounts, importCounts], "\(label): after importing again: \(after)")
                    let attachAgain = try context.capture(["attach", String(id), notes], dataDirectory: directory)
                    tally.check(attachAgain.status == 0 || attachAgain.status == 65, "\(label): capture attach again: \(attachAgain.summary)")
                    let names = try Store.inspect(directory) { try $0.attachments(of: id).map(\.name) }
                    tally.check(names == ["notes.json"], "\(label): attachments after attaching again: \(names)")
                    checkAttachments(directory, label: label + ", attached again", tally: tally)
                }
            } catch {
                tally.check(false, "\(label): \(error)")
            }
        }
    }
}
