import CaptureStorage
import Foundation

/// The collector's random fault plan (dropped connections, 500s, expired sessions, 308s without
/// Range, lost 201s) at `rate` per PUT, for many distinct short measurements uploaded in small
/// chunks. `capture upload` is run until nothing is left to do (each run has a retry budget per
/// measurement); then every measurement must be stored exactly once, byte-identical to
/// `capture export`.
struct CollectorFaults {
    let context: Context
    let rate: Double
    let chunkSize = 8_192
    let rounds = 6

    func run(measurements: Int) throws -> Tally {
        let tally = Tally("collector faults at \(Int((rate * 100).rounded())) %")
        tally.runs = measurements
        let data = try context.directory("collector-faults")
        let text = try TraceText(path: context.trace)
        let length: Int64 = 20_000
        let span = max(text.lastTime - text.firstTime - length, 1)
        var files: [Int64: Data] = [:]
        for index in 0..<measurements {
            // Distinct rides: 20-second windows at different places in the trace.
            let from = Int64(index) * 5_000 % span
            let path = context.work + "/window-\(index).trace"
            try text.window(from: from, length: length).write(toFile: path, atomically: false, encoding: .utf8)
            let replayed = try context.capture(["replay", path, "--json"], dataDirectory: data)
            guard replayed.status == 0, let id = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
                throw CampaignError("capture replay \(path): \(replayed.summary)")
            }
            let exported = context.work + "/window-\(id).ccyf"
            let export = try context.capture(["export", String(id), "--format", "cyface", "-o", exported], dataDirectory: data)
            guard export.status == 0, let bytes = FileManager.default.contents(atPath: exported) else {
                throw CampaignError("capture export \(id): \(export.summary)")
            }
            files[id] = bytes
        }
        let seed = UInt64.random(in: 1...UInt64(UInt32.max), using: &context.random)
        let collector = try CollectorRun(
            context: context, arguments: ["--fault-rate", "\(rate)", "--fault-seed", "\(seed)", "--session-expiry", "600"])
        defer { collector.stop() }
        var round = 0
        var lastStatus: Int32 = -1
        while round < rounds {
            round += 1
            let upload = try context.capture(
                ["upload", "--json", "--chunk-size", "\(chunkSize)", "--retry-budget", "30"] + collector.uploadArguments,
                dataDirectory: data, timeout: 1800)
            lastStatus = upload.status
            context.log("upload round \(round): \(upload.summary)")
            if upload.status == 0 { break }
        }
        tally.check(lastStatus == 0, "capture upload still failing after \(rounds) rounds (last exit \(lastStatus))")
        let stored = try collector.stored()
        tally.check(stored.count == files.count, "the collector holds \(stored.count) uploads, expected \(files.count)")
        for (id, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let copies = stored.filter { $0.measurement == String(id) }
            tally.check(copies.count == 1, "measurement \(id) stored \(copies.count) times")
            tally.check(copies.allSatisfy { $0.bytes == bytes }, "measurement \(id): stored bytes differ from capture export")
        }
        let states = try Store.inspect(data) { try $0.uploads() }
        let uploaded = files.keys.filter { states[$0]?.status == .uploaded }.count
        tally.check(uploaded == files.count, "\(uploaded) of \(files.count) measurements marked uploaded locally")
        // What the fault plan did, from the collector's log of PUT answers.
        let ranges = collector.ranges
        let faults = ranges.filter { $0.contains("(fault)") || $0.contains("(response lost)") || $0.contains("truncated") }.count
            + ranges.filter { $0.hasSuffix(" 404") }.count
            + ranges.filter { $0.hasSuffix(" 308 -") }.count
        tally.worst = "\(faults) of \(ranges.count) PUT answers faulty (ranges.log); \(round) upload round\(round == 1 ? "" : "s")"
        return tally
    }
}
