import CaptureCore
import CaptureStorage
import Foundation
import Glibc

extension PowerCuts {
    /// The flush log's replay after a cut. A recorder (the trace, 1 s flushes, staged commits)
    /// runs under the shim; a power cut 2–4 s after its start (``CrashStates``), when its flush
    /// log holds records the database does not, is the medium the box boots from. There `capture stop` (the boot) runs under the shim: it applies the
    /// log to the database and finishes the measurement. Per cut of that boot: the store opens
    /// and passes `integrity_check`; the earlier ride is whole; the box boots again
    /// (`capture stop`: 0, or 4 when the cut came after the finish was committed) and the
    /// measurement then holds exactly what the uncut boot gave it (nothing that was on the
    /// medium before the first cut is lost); every attachment is whole; `capture doctor` passes.
    func runReplay(cuts: Int, tally: Tally, figures: Figures) throws {
        let ridePath = context.work + "/power-ride.trace"
        let runs = max(1, min(cuts / 10, 5))
        var done = 0
        for run in 0..<runs {
            // The recording, cut.
            let recordingJournal = context.work + "/power-replay-\(run)-recording.journal"
            guard
                let (first, ride, rideCounts, recording, _) = try startUnderShim(
                    "power-replay", ride: ridePath, journal: recordingJournal, label: "replay run \(run)", tally: tally)
            else { continue }
            // The cut comes 2–4 s into the recording (the recorder is stopped afterwards, so
            // that no process is killed while it writes the journal).
            Clock.sleep(2 + context.uniform(0...2))
            let cutAt = journalSize(recordingJournal)
            let stopped = try context.capture(["stop"], dataDirectory: first)
            guard tally.check(stopped.status == 0, "replay run \(run): capture stop: \(stopped.summary)") else { continue }
            let cutRecording = CrashStates(root: first, snapshot: recording, journal: try PowerJournal(path: recordingJournal))
            let firstCut = cutRecording.steps(upToJournalByte: cutAt)
            let data = context.work + "/power-replay-\(run)-boot"
            try cutRecording.state(cut: firstCut, mode: .powerCut, random: &context.random).materialize(into: data)
            // The boot, journalled; what it leaves is the reference.
            let snapshot = try DirectorySnapshot(root: data)
            let journal = context.work + "/power-replay-\(run).journal"
            let boot = try context.capture(["stop", "--json"], dataDirectory: data, environment: environment(root: data, journal: journal))
            guard tally.check(boot.status == 0, "replay run \(run): capture stop after the cut: \(boot.summary)") else { continue }
            let reference = try Store.inspect(data) { store in
                try store.measurements().filter { $0.id != ride }.map { try store.counts(of: $0.id).total }.reduce(0, +)
            }
            tally.check(reference > 0, "replay run \(run): nothing of the recording was on the medium after the cut")
            let states = CrashStates(root: data, snapshot: snapshot, journal: try PowerJournal(path: journal))
            let count = (cuts - done) / (runs - run)
            cutEach(cutPoints(count, states: states), of: states, name: "replay", tally: tally, figures: figures) { directory, label in
                let (integrity, counts, open) = try Store.inspect(directory) { store in
                    (try store.integrityCheck(), try store.counts(of: ride), try store.measurements().contains(where: \.isOpen))
                }
                tally.check(integrity == "ok", "\(label): integrity_check: \(integrity)")
                tally.check(counts == rideCounts, "\(label): the earlier ride changed: \(rideCounts) → \(counts)")
                let stop = try context.capture(["stop", "--json"], dataDirectory: directory)
                tally.check(stop.status == 0 || (stop.status == 4 && !open), "\(label): capture stop again: \(stop.summary)")
                let (after, stillOpen) = try Store.inspect(directory) { store in
                    let records = try store.measurements()
                    return (
                        try records.filter { $0.id != ride }.map { try store.counts(of: $0.id).total }.reduce(0, +),
                        records.filter(\.isOpen).map(\.id)
                    )
                }
                figures.worstLoss = max(figures.worstLoss, reference - after)
                tally.check(after == reference, "\(label): \(after) samples after the boot, \(reference) before the cut")
                tally.check(stillOpen.isEmpty, "\(label): still open after stop: \(stillOpen)")
                checkAttachments(directory, label: label, tally: tally)
                checkDoctor(directory, label: label, tally: tally)
            }
            done += count
        }
    }
}
