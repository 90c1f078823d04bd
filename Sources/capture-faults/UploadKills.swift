import CaptureStorage
import Foundation
import Glibc

/// `kill -9` of `capture upload` at random moments, against a throttled collector so that an
/// upload lasts a few seconds; then `capture upload --resume` and a plain `capture upload`.
///
/// Checks per run: both commands succeed; every measurement is stored at the collector exactly
/// once, byte-identical to `capture export`; an upload cut mid-file resumes with a status query
/// whose answer is what the collector had stored at the kill, and its first PUT starts at that
/// offset (no byte sent twice, none skipped); a measurement the collector completed before the
/// kill is not sent again.
struct UploadKills {
    let context: Context
    /// Repetitions of the trace in the long measurement (one copy of the fixture is 10 minutes).
    let copies: Int
    /// Roughly how long the whole upload of one run lasts at the collector's throttle, seconds.
    let uploadSeconds: Double
    let chunkSize = 262_144

    func run(count: Int) throws -> Tally {
        let tally = Tally("capture upload kill -9")
        // The measurements every run uploads: a long ride and a short one.
        let template = try context.directory("upload-template")
        let text = try TraceText(path: context.trace)
        let rides = [
            (context.work + "/upload-long.trace", text.repeated(copies)),
            (context.work + "/upload-short.trace", text.window(from: 0, length: 60_000, modality: "CAR")),
        ]
        var files: [Int64: Data] = [:]
        for (path, body) in rides {
            try body.write(toFile: path, atomically: false, encoding: .utf8)
            let replayed = try context.capture(["replay", path, "--json"], dataDirectory: template, timeout: 600)
            guard replayed.status == 0, let id = (replayed.object["measurement"] as? NSNumber)?.int64Value else {
                throw CampaignError("capture replay \(path): \(replayed.summary)")
            }
            let exported = context.work + "/upload-\(id).ccyf"
            let export = try context.capture(
                ["export", String(id), "--format", "cyface", "-o", exported], dataDirectory: template)
            guard export.status == 0, let bytes = FileManager.default.contents(atPath: exported) else {
                throw CampaignError("capture export \(id): \(export.summary)")
            }
            files[id] = bytes
        }
        let total = files.values.reduce(0) { $0 + $1.count }
        let throttle = max(Int(Double(total) / uploadSeconds), 65_536)
        var resumedMidFile = 0
        var completedBeforeKill = 0
        var worstOffsetError: Int64 = 0
        for _ in 0..<count {
            tally.runs += 1
            let label = "run \(tally.runs)\(tally.runs % 2 == 0 ? " (chunked)" : "")"
            let data = try context.directory("upload-data")
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: template + "/capture.sqlite" + suffix) {
                try FileManager.default.copyItem(
                    atPath: template + "/capture.sqlite" + suffix, toPath: data + "/capture.sqlite" + suffix)
            }
            let collector = try CollectorRun(context: context, arguments: ["--throttle", "\(throttle)"])
            defer { collector.stop() }
            let killAfter = context.uniform(0.05...uploadSeconds)
            // Loopback socket buffers hold megabytes, so a whole-file PUT is mostly in the kernel
            // before the kill and still reaches the collector: every other run uploads in
            // chunks, where only one chunk is ever in flight and the kill cuts the file.
            let chunked = tally.runs % 2 == 0
            let options = ["--json", "--retry-budget", "60"] + (chunked ? ["--chunk-size", "\(chunkSize)"] : [])
                + collector.uploadArguments
            let upload = try context.spawnCapture(["upload"] + options, dataDirectory: data)
            Clock.sleep(killAfter)
            kill(upload.pid, SIGKILL)
            let status = upload.wait()
            context.log("\(label): upload killed after \(format(killAfter)) s (exit \(status))")
            // Bytes already in the socket buffers still reach the collector: wait until its
            // partial files stop growing.
            var last = collector.partialSizes
            var stableSince = Clock.now()
            let deadline = Clock.now() + 15
            while Clock.now() - stableSince < 0.5, Clock.now() < deadline {
                usleep(50_000)
                let now = collector.partialSizes
                if now != last {
                    last = now
                    stableSince = Clock.now()
                }
            }
            // Where the collector stands for each measurement.
            let uploads = try Store.inspect(data) { try $0.uploads() }
            let storedAtKill = Set(try collector.stored().map(\.measurement))
            var standing: [Int64: (sid: String, received: Int64?)] = [:]
            for id in files.keys {
                guard let url = uploads[id]?.sessionURL, let sid = Self.sid(url) else { continue }
                standing[id] = (sid, collector.partialSize(sid))
            }
            let mark = collector.ranges.count

            let resumed = try context.capture(["upload", "--resume"] + options, dataDirectory: data)
            tally.check(resumed.status == 0, "\(label): capture upload --resume: \(resumed.summary)")
            let rest = try context.capture(["upload"] + options, dataDirectory: data)
            tally.check(rest.status == 0, "\(label): capture upload: \(rest.summary)")

            // Exactly once, byte-identical.
            let stored = try collector.stored()
            tally.check(stored.count == files.count, "\(label): the collector holds \(stored.count) uploads, expected \(files.count)")
            try checkDelivered(files, to: collector, from: data, label: label, tally: tally)

            // Resumed where the collector stood.
            let after = collector.ranges.dropFirst(mark)
            for (id, stand) in standing {
                let lines = after.filter { $0.hasPrefix(stand.sid + " ") }.map { $0.split(separator: " ").map(String.init) }
                let puts = lines.filter { $0.count > 1 && !$0[1].hasPrefix("*/") }
                if storedAtKill.contains(String(id)) {
                    completedBeforeKill += 1
                    tally.check(puts.isEmpty, "\(label): measurement \(id) was complete at the kill but sent again: \(puts)")
                    continue
                }
                guard let received = stand.received else { continue }
                resumedMidFile += 1
                let query = lines.first { $0.count > 2 && $0[1].hasPrefix("*/") }
                tally.check(
                    query.map { $0.count > 3 && $0[2] == "308" && $0[3] == "bytes=0-\(received - 1)" } == true,
                    "\(label): measurement \(id): the status query answer \(query ?? []) is not the collector's \(received) bytes")
                guard let first = puts.first, let from = Int64(first[1].split(separator: "-").first ?? "") else {
                    tally.check(false, "\(label): measurement \(id) had \(received) bytes at the collector, but no resumed PUT: \(lines)")
                    continue
                }
                worstOffsetError = max(worstOffsetError, abs(from - received))
                tally.check(
                    from == received,
                    "\(label): measurement \(id) resumed at byte \(from), but the collector had \(received)")
            }
        }
        tally.worst =
            "resume offset error \(worstOffsetError) B (allowed 0); \(resumedMidFile) resumed mid-file, "
            + "\(completedBeforeKill) complete before the kill; \(files.count) measurements, \(total / 1024) KiB per run"
        return tally
    }

    /// The session id in a collector Location: `…/measurements/(<sid>)/`.
    static func sid(_ url: String) -> String? {
        guard let open = url.lastIndex(of: "("), let close = url.lastIndex(of: ")"), open < close else { return nil }
        return String(url[url.index(after: open)..<close])
    }
}
