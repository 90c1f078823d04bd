import CaptureCore
import CaptureStorage
import Foundation
import Glibc

extension PowerCuts {
    // MARK: - Live recording

    /// Live recording, and the same runs cut around their lifecycle commands: `cuts` cuts
    /// anywhere in the runs (`tally`), `lifecycleCuts` near a command (`lifecycle`: from as many
    /// steps before the command began as it took, to as many after it returned). A cut after a
    /// command returned must hold its event, one before it began must not.
    func runLive(cuts: Int, tally: Tally, lifecycleCuts: Int, lifecycle: Tally, figures: Figures, lifecycleFigures: Figures) throws {
        let timeline = try TraceTimeline(path: context.trace)
        // The most samples the trace delivers in any one flush interval plus the allowance.
        let window = Int64((flushInterval * 1000).rounded()) + allowance
        let offsets = timeline.offsets
        let allowed = offsets.map { offsets.count(after: $0 - window, atOrBefore: $0) }.max() ?? 0
        figures.allowed = allowed
        lifecycleFigures.allowed = allowed
        let text = try TraceText(path: context.trace)
        let ridePath = context.work + "/power-ride.trace"
        try text.window(from: 0, length: 20_000).write(toFile: ridePath, atomically: false, encoding: .utf8)
        // Runs of the scenario, each journalled and cut a few times.
        let runs = max(1, min(cuts / 25, 8))
        var done = 0
        var doneNear = 0
        for run in 0..<runs {
            let journal = context.work + "/power-live-\(run).journal"
            guard
                let (data, ride, reference, snapshot, env) = try startUnderShim(
                    "power-live", ride: ridePath, journal: journal, options: ["--modality", "BICYCLE"], label: "live run \(run)", tally: tally)
            else { continue }
            // Every other run another process reads the store through the commands (issue 28,
            // item 5): their events wait in the flush log and go in once it lets go.
            let reader = try run % 2 == 0 ? nil : Child(
                "/usr/bin/sqlite3", [data + "/capture.sqlite", "BEGIN", "SELECT count(*) FROM event", ".shell sleep 8", "COMMIT"],
                directory: context.work, name: context.outputName("reader"))
            // Where the journal stood when each command was sent and when it returned.
            var commands: [(event: EventType, value: String?, sent: Int, returned: Int)] = []
            for (pause, command, event) in [
                (1.3, "pause", EventType.lifecyclePause), (0.4, "resume", .lifecycleResume), (1.2, "modality", .modalityTypeChange),
                (0.8, "stop", .lifecycleStop),
            ] {
                Clock.sleep(pause + context.uniform(0...0.3))
                let arguments = command == "modality" ? ["modality", "WALKING"] : [command]
                let sent = journalSize(journal)
                let outcome = try context.capture(arguments, dataDirectory: data, environment: env)
                tally.check(outcome.status == 0, "live run \(run): capture \(command) under the shim: \(outcome.summary)")
                commands.append((event, command == "modality" ? "WALKING" : nil, sent, journalSize(journal)))
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
            let near = (lifecycleCuts - doneNear) / (runs - run)
            for _ in 0..<near {
                let command = commands[context.integer(0..<commands.count)]
                let sent = states.steps(upToJournalByte: command.sent)
                let returned = states.steps(upToJournalByte: command.returned)
                let span = returned - sent
                let cut = context.integer(max(0, sent - span)..<(min(states.stepCount, returned + span) + 1))
                lifecycle.runs += 1
                checkLive(
                    cut: cut, of: states, ride: ride, reference: reference, allowed: allowed, tally: lifecycle, figures: lifecycleFigures
                ) { label, store in
                    guard cut < sent || cut >= returned else { return }
                    // Its event: the type, and for a modality change the new modality (the start records the first).
                    let found = try store.measurements().filter { $0.id != ride }.flatMap { try store.events(of: $0.id) }
                        .contains { $0.type == command.event && (command.value == nil || $0.value == command.value) }
                    lifecycleFigures.counts[cut >= returned ? "returned" : "before", default: 0] += 1
                    if cut >= returned {
                        lifecycle.check(found, "\(label): \(command.event.name) returned at step \(returned), not in the store")
                    } else {
                        lifecycle.check(!found, "\(label): \(command.event.name) in the store before it was sent (step \(sent))")
                    }
                }
            }
            doneNear += near
        }
    }

    /// The journal's size now (it grows while the commands run).
    func journalSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// After `capture stop` returned, everything it committed is durable: the state that holds
    /// only what was synced by then has every measurement finished with all its samples, and the
    /// recorder's log whole.
    func checkEnd(of states: CrashStates, data: String, run: Int, tally: Tally) {
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
            checkDoctor(directory, label: label, tally: tally)
        } catch {
            tally.check(false, "\(label): \(error)")
        }
    }

    /// One live cut: the checks of docs/faults.md, then `extra` on the store before the box
    /// boots (with the cut's label).
    func checkLive(
        cut: Int, of states: CrashStates, ride: Int64, reference: SampleCounts, allowed: Int, tally: Tally, figures: Figures,
        extra: ((String, Store) throws -> Void)? = nil
    ) {
        // A cut near a command (with `extra`) is named apart: its tally counts from 1 too.
        let kind = extra == nil ? "live" : "lifecycle"
        let label = "\(kind) cut \(tally.runs) at step \(cut) of \(states.stepCount)"
        do {
            let crash = states.state(cut: cut, mode: .powerCut, random: &context.random)
            let killed = states.state(cut: cut, mode: .killed, random: &context.random)
            figures.states += 1
            figures.bytesLost += crash.bytesLost
            let crashDirectory = context.work + "/power-\(kind)-cut-\(tally.runs)"
            let killedDirectory = context.work + "/power-\(kind)-kill-\(tally.runs)"
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
            if let extra { try Store.inspect(crashDirectory) { try extra(label, $0) } }
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
            checkDoctor(crashDirectory, label: label, tally: tally)
        } catch {
            tally.check(false, "\(label): \(error)")
        }
    }
}
