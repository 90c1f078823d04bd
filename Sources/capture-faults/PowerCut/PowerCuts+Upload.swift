import CaptureCore
import CaptureStorage
import Foundation
import Glibc

// Power cuts during capture upload, and during capture import and attach.
extension PowerCuts {
    // MARK: - Upload

    func runUpload(cuts: Int, tally: Tally, figures: Figures) throws {
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
        try cutSerialising(cuts, data: data, snapshot: snapshot, journal: journal, name: "upload", tally: tally, figures: figures) {
            directory, label in
            let integrity = try Store.inspect(directory) { try $0.integrityCheck() }
            tally.check(integrity == "ok", "\(label): integrity_check: \(integrity)")
            let again = try context.capture(["upload"] + options, dataDirectory: directory)
            tally.check(again.status == 0, "\(label): capture upload after the cut: \(again.summary)")
            try checkDelivered(files, to: collector, from: directory, label: label, tally: tally)
            checkDoctor(directory, label: label, tally: tally)
        }
    }

    // MARK: - Import and attach

    /// `capture import` of a transfer file, then `capture attach` of a JSON file to it, into a
    /// store holding one ride. Per cut: `integrity_check`; the ride unchanged; the import there
    /// whole or not at all; every recorded attachment whole; then both commands run again: the
    /// import is refused as already there (65) or stored (0), the attach refused as a duplicate
    /// (65) or stored (0), and afterwards the ride is there exactly once with its attachment.
    func runImport(cuts: Int, tally: Tally, figures: Figures) throws {
        let text = try TraceText(path: context.trace)
        let tracePath = context.work + "/power-import.trace"
        try text.window(from: 60_000, length: 30_000).write(toFile: tracePath, atomically: false, encoding: .utf8)
        let (source, sourceID) = try storeWithRide("power-import-source", ride: tracePath)
        let transfer = context.work + "/power-import.ccyf"
        let export = try context.capture(["export", String(sourceID), "--format", "cyface", "-o", transfer], dataDirectory: source)
        guard export.status == 0 else { throw CampaignError("capture export: \(export.summary)") }
        let notes = context.work + "/notes.json"
        try Data("{\"weather\": \"rain\", \"tyres\": [\"front\", \"rear\"]}\n".utf8).write(to: URL(fileURLWithPath: notes))

        let (data, ride) = try storeWithRide("power-import", ride: context.work + "/power-ride.trace")
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
                    checkDoctor(directory, label: label, tally: tally)
                }
            } catch {
                tally.check(false, "\(label): \(error)")
            }
        }
    }
}
