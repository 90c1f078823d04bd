import CaptureCore
import CaptureStorage
import Foundation
import Glibc

extension PowerCuts {
    /// `capture sync` with pruning (`retention.keep_uploaded_days: 0`, so that every ride the
    /// collector confirms goes in the same pass): three finished rides, one with a note
    /// attached, no transfer file cached. One pass under the shim serialises each ride (the
    /// transfer file and its sidecar), sends it, records the outcome, and prunes it (its rows
    /// and tombstone in one transaction, then its transfer file, sidecar and attachment folder).
    /// Per cut: `integrity_check`; every ride still in the store whole (its counts); then the
    /// box's next pass (`capture sync --now`) exits 0; the collector holds each ride exactly
    /// once, byte-identical to `capture export`; no ride is left in the store, and no file of
    /// one (`transfer/ID.*`, `attachments/ID`); `capture doctor` passes.
    func runSync(cuts: Int, tally: Tally, figures: Figures) throws {
        let collector = try CollectorRun(context: context, arguments: [])
        defer { collector.stop() }
        let config = context.work + "/power-sync.yaml"
        try """
            collector: { url: "\(collector.url)", token_file: \(collector.tokenFile), retry_budget: 20s }
            retention: { keep_uploaded_days: 0 }

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let settings = ["CAPTURE_CONFIG=" + config]
        let data = try context.directory("power-sync")
        let text = try TraceText(path: context.trace)
        var files: [Int64: Data] = [:]
        var counts: [Int64: SampleCounts] = [:]
        for (index, start) in [0, 40_000, 80_000].enumerated() {
            let path = context.work + "/power-sync-\(index).trace"
            try text.window(from: Int64(start), length: 20_000).write(toFile: path, atomically: false, encoding: .utf8)
            let replayed = try context.capture(["replay", path, "--json"], dataDirectory: data, environment: settings, timeout: 300)
            guard replayed.status == 0, let id = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
                throw CampaignError("capture replay \(path): \(replayed.summary)")
            }
            let exported = context.work + "/power-sync-\(id).ccyf"
            let export = try context.capture(
                ["export", String(id), "--format", "cyface", "-o", exported], dataDirectory: data, environment: settings)
            guard export.status == 0, let bytes = FileManager.default.contents(atPath: exported) else {
                throw CampaignError("capture export \(id): \(export.summary)")
            }
            files[id] = bytes
            counts[id] = try Store.inspect(data) { try $0.counts(of: id) }
        }
        let notes = context.work + "/power-sync-notes.json"
        try Data("{\"weather\": \"dry\"}\n".utf8).write(to: URL(fileURLWithPath: notes))
        let noted = try context.capture(["attach", String(files.keys.min() ?? 1), notes], dataDirectory: data, environment: settings)
        guard noted.status == 0 else { throw CampaignError("capture attach: \(noted.summary)") }
        // The exports filled the transfer cache: without it the pass serialises under the shim.
        try? FileManager.default.removeItem(atPath: data + "/transfer")
        let snapshot = try DirectorySnapshot(root: data)
        let journalPath = context.work + "/power-sync.journal"
        let pass = try context.capture(
            ["sync", "--now", "--json"], dataDirectory: data, environment: settings + environment(root: data, journal: journalPath))
        guard tally.check(pass.status == 0, "capture sync under the shim: \(pass.summary)") else { return }
        guard tally.check(leftOf(files.keys, in: data).isEmpty, "the pass under the shim did not prune: \(leftOf(files.keys, in: data))")
        else { return }
        try cutSerialising(cuts, data: data, snapshot: snapshot, journal: journalPath, name: "sync", tally: tally, figures: figures) {
            directory, label in
            let (integrity, held) = try Store.inspect(directory) { store in
                (try store.integrityCheck(), try store.measurements().map { ($0.id, try store.counts(of: $0.id)) })
            }
            tally.check(integrity == "ok", "\(label): integrity_check: \(integrity)")
            if held.count < files.count { figures.counts["pruned", default: 0] += 1 }
            for (id, found) in held {
                tally.check(found == counts[id], "\(label): measurement \(id) is not whole: \(found), was \(counts[id].map { "\($0)" } ?? "none")")
            }
            checkAttachments(directory, label: label, tally: tally)
            // The next pass of the timer.
            let next = try context.capture(["sync", "--now", "--json"], dataDirectory: directory, environment: settings)
            tally.check(next.status == 0, "\(label): capture sync after the cut: \(next.summary)")
            let stored = try collector.stored()
            for (id, bytes) in files {
                let copies = stored.filter { $0.measurement == String(id) }
                tally.check(copies.count == 1, "\(label): measurement \(id) stored \(copies.count) times")
                tally.check(copies.allSatisfy { $0.bytes == bytes }, "\(label): measurement \(id) stored bytes differ from capture export")
            }
            let left = leftOf(files.keys, in: directory)
            tally.check(left.isEmpty, "\(label): left after the next pass: \(left.joined(separator: ", "))")
            checkDoctor(directory, label: label, tally: tally, environment: settings)
        }
    }

    /// What of the measurements `ids` is still in `directory`: their rows, transfer files and
    /// sidecars (and the temporary files they are written as), attachment folders.
    private func leftOf(_ ids: some Collection<Int64>, in directory: String) -> [String] {
        var left = ((try? Store.inspect(directory) { try $0.measurements().map(\.id) }) ?? []).filter(ids.contains).map { "measurement \($0)" }
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: directory + "/transfer")) ?? []
        where ids.contains(where: { name.hasPrefix("\($0).") || name.hasPrefix(".\($0).") }) {
            left.append("transfer/" + name)
        }
        for name in (try? manager.contentsOfDirectory(atPath: directory + "/attachments")) ?? [] where ids.contains(where: { name == String($0) }) {
            left.append("attachments/" + name)
        }
        return left
    }

    /// The run journalled into `journal` (from `snapshot` of `data`) cut `count` times, one in
    /// five while a transfer file was being written (counted as `serialising`), each state
    /// checked by `checks` (``cutEach(_:of:name:tally:figures:_:)``).
    func cutSerialising(
        _ count: Int, data: String, snapshot: DirectorySnapshot, journal path: String, name: String, tally: Tally, figures: Figures,
        _ checks: (_ directory: String, _ label: String) throws -> Void
    ) throws {
        let journal = try PowerJournal(path: path)
        let states = CrashStates(root: data, snapshot: snapshot, journal: journal)
        let serialising = serialisingSteps(journal, states: states)
        let points = cutPoints(count, states: states, within: serialising)
        figures.counts["serialising", default: 0] += points.filter { cut in serialising.contains { $0.contains(cut) } }.count
        cutEach(points, of: states, name: name, tally: tally, figures: figures, checks)
    }

    /// ``cutPoints(_:states:)``, with every fifth point moved into one of `spans` (a step of
    /// serialisation, a small share of the journal), so that each run cuts it too.
    func cutPoints(_ count: Int, states: CrashStates, within spans: [ClosedRange<Int>]) -> [Int] {
        var points = cutPoints(count, states: states)
        guard !spans.isEmpty else { return points }
        for index in points.indices where index % 5 == 2 {
            let span = spans[context.integer(0..<spans.count)]
            points[index] = context.integer(span.lowerBound..<(span.upperBound + 1))
        }
        return points
    }

    /// The cut points while a transfer file was being written: per measurement, from before the
    /// first journalled change under `transfer/` that names it to after its sidecar's rename.
    func serialisingSteps(_ journal: PowerJournal, states: CrashStates) -> [ClosedRange<Int>] {
        var first: [String: Int] = [:]
        var spans: [ClosedRange<Int>] = []
        var start = 0
        for entry in journal.entries {
            defer { start = entry.data.upperBound }
            for path in [entry.path, entry.path2] where path.contains("/transfer/") {
                let name = (path as NSString).lastPathComponent.drop { $0 == "." }
                let stem = String(name.prefix { $0 != "." })
                if first[stem] == nil { first[stem] = start }
                if entry.kind == .rename, entry.path2.hasSuffix(".ccyf.meta"), path == entry.path2, let from = first.removeValue(forKey: stem) {
                    spans.append(states.steps(upToJournalByte: from)...states.steps(upToJournalByte: entry.data.upperBound))
                }
            }
        }
        return spans
    }
}
