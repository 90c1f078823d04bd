import CaptureStorage
import Foundation
import Glibc

/// A full disk, made portable with `--max-store-size` (SQLite's `max_page_count`: the write that
/// needs one page more fails with SQLITE_FULL exactly as on a full disk, on any machine).
///
/// 1. A recorder in the foreground fills the store during a periodic commit: it must exit 73
///    with its message, keep every earlier commit (and the other measurement), leave a sound
///    database, and `capture status`/`capture stop` must take over as after a crash.
/// 2. A lifecycle command whose commit does not fit (`capture pause` with samples pending):
///    it must exit 73 with the message, and the recorder stop cleanly.
/// 3. Room is made (`capture delete` of the oldest measurement) and capture works again under
///    the same limit.
struct FullDisk {
    let context: Context
    /// Bytes of room above the store's size when the filling recorder starts.
    let headroom: Int64 = 12 * 1024

    func run() throws -> Tally {
        let tally = Tally("full disk (--max-store-size)")
        tally.runs = 1
        let data = try context.directory("full-disk")
        let text = try TraceText(path: context.trace)
        let short = context.work + "/full-disk-first.trace"
        try text.window(from: 0, length: 60_000).write(toFile: short, atomically: false, encoding: .utf8)
        let replayed = try context.capture(["replay", short, "--json"], dataDirectory: data)
        guard tally.check(replayed.status == 0, "capture replay: \(replayed.summary)"),
            let first = (replayed.object["measurement"] as? NSNumber)?.int64Value
        else { return tally }
        let firstCounts = try Store.inspect(data) { try $0.counts(of: first) }
        let source = ["--source", "trace:" + context.trace, "--modality", "BICYCLE"]

        // 1. The store fills up during a periodic commit.
        let limit = try Store.inspect(data) { try $0.databaseSize() } + headroom
        // Flushes wait in the flush log until 2 MiB of it is used (4 KiB a flush): at 20 a
        // second the store is met within half a minute.
        let filling = try context.spawnCapture(
            ["start", "--foreground", "--json", "--flush-interval", "0.05", "--max-store-size", "\(limit)"] + source,
            dataDirectory: data)
        let status = filling.wait(seconds: 120)
        let message = filling.stderr
        tally.check(status == 73, "the recorder filling the store ended with \(status.map(String.init) ?? "a timeout"), expected 73: \(message)")
        tally.check(
            message.contains("capture: the disk holding") && message.contains("is full")
                && message.contains("nothing committed was lost"),
            "the recorder's message on a full store: \(message)")
        let second = (filling.json?["measurement"] as? NSNumber)?.int64Value ?? first + 1
        let full = try Store.inspect(data) { store in
            (integrity: try store.integrityCheck(), first: try store.counts(of: first), second: try store.counts(of: second),
             record: try store.measurement(second), size: try store.databaseSize())
        }
        tally.check(full.integrity == "ok", "integrity_check on the full store: \(full.integrity)")
        tally.check(full.first == firstCounts, "the other measurement changed: \(firstCounts) → \(full.first)")
        tally.check(full.second.total > 0, "nothing was committed before the store was full (limit \(limit) B)")
        tally.check(full.record.isOpen, "measurement \(second) is \(full.record.status) after the recorder stopped")
        let interrupted = try context.capture(["status", "--json"], dataDirectory: data)
        tally.check(
            interrupted.object["state"] as? String == "interrupted",
            "capture status after the full store: \(interrupted.summary) \(interrupted.stdout)")
        let stopped = try context.capture(["stop", "--json"], dataDirectory: data)
        tally.check(stopped.status == 0, "capture stop after the full store: \(stopped.summary)")
        let kept = try Store.inspect(data) { try $0.counts(of: second) }
        tally.check(kept == full.second, "stop changed what was committed: \(full.second) → \(kept)")

        // 2. A lifecycle command's commit does not fit. Samples stay pending (no periodic
        // commit within the run) until `capture pause` commits them.
        var third: Int64?
        for extra in [0, 4096, 8192] as [Int64] {
            let tight = try Store.inspect(data) { try $0.databaseSize() } + extra
            let started = try context.capture(
                ["start", "--json", "--flush-interval", "3600", "--max-store-size", "\(tight)"] + source,
                dataDirectory: data)
            if started.status == 73 { continue }  // not even room for the start: more headroom
            guard tally.check(started.status == 0, "capture start with samples pending: \(started.summary)") else { break }
            third = (started.object["measurement"] as? NSNumber)?.int64Value
            let pid = (started.object["pid"] as? NSNumber)?.int32Value ?? 0
            // Rows of 800 samples (~3 KB) take a page each: 2 700 samples pending need more
            // pages than the last partly filled ones can offer.
            let pending = try context.waitFor(30) {
                let status = try context.capture(["status", "--json"], dataDirectory: data)
                return ((status.object["recorder"] as? [String: Any])?["pendingSamples"] as? Int ?? 0) >= 2_700
            }
            tally.check(pending, "the recorder did not gather 2700 pending samples within 30 s")
            let pause = try context.capture(["pause"], dataDirectory: data)
            tally.check(
                pause.status == 73 && pause.stderr.hasPrefix("capture: the disk holding")
                    && pause.stderr.contains("nothing committed was lost"),
                "capture pause on a full store: \(pause.summary), expected exit 73 and the disk-full message")
            tally.check(context.waitFor(10) { isGone(pid) }, "the recorder \(pid) did not stop after the full store")
            let status = try context.capture(["status", "--json"], dataDirectory: data)
            tally.check(status.object["state"] as? String == "interrupted", "capture status: \(status.stdout)")
            let stop = try context.capture(["stop"], dataDirectory: data)
            tally.check(stop.status == 0, "capture stop: \(stop.summary)")
            break
        }
        tally.check(third != nil, "no headroom let capture start with samples pending")

        // 3. Room again: the oldest measurement is deleted; the same limit now has space.
        let deleted = try context.capture(["delete", String(first), "--yes"], dataDirectory: data)
        tally.check(deleted.status == 0, "capture delete: \(deleted.summary)")
        let again = try context.capture(
            ["start", "--json", "--flush-interval", "0.25", "--max-store-size", "\(limit)"] + source, dataDirectory: data)
        if tally.check(again.status == 0, "capture start once there is room: \(again.summary)"),
            let fourth = (again.object["measurement"] as? NSNumber)?.int64Value
        {
            Clock.sleep(1.5)
            let stop = try context.capture(["stop", "--json"], dataDirectory: data)
            tally.check(stop.status == 0, "capture stop once there is room: \(stop.summary)")
            let end = try Store.inspect(data) { store in
                (integrity: try store.integrityCheck(), counts: try store.counts(of: fourth), second: try store.counts(of: second),
                 open: try store.openMeasurement())
            }
            tally.check(end.integrity == "ok", "integrity_check at the end: \(end.integrity)")
            tally.check(end.counts.total > 0, "nothing was captured once there was room")
            tally.check(end.second == full.second, "measurement \(second) changed: \(full.second) → \(end.second)")
            tally.check(end.open == nil, "a measurement is still open at the end")
        }
        tally.worst =
            "exit 73 with the message; 0 committed samples lost (\(full.second.total) kept); "
            + "store \(full.size / 1024) KiB at a \(limit / 1024) KiB limit"
        return tally
    }
}

extension Child {
    /// Standard output as a JSON object, if it is one.
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] }
}
