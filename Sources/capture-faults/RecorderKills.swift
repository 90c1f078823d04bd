import CaptureCore
import CaptureStorage
import Foundation
import Glibc

/// `kill -9` of the recorder at random moments, capturing from a trace (live-paced) or from a
/// fake IIO accelerometer fed by a writer thread.
///
/// Each run starts a measurement in the campaign's data directory, sometimes changes modality,
/// pauses, or pauses and resumes first, kills the recorder, and checks: the database passes
/// `integrity_check`; `capture status` reports the measurement interrupted; what is stored is
/// no more than what the source had delivered by the kill, and at most one flush interval (plus
/// the allowance) less than it; `capture stop` finishes it without changing what is stored.
struct RecorderKills {
    enum Source: String {
        case trace
        case iio = "fake IIO"
    }

    enum Action: CaseIterable {
        case none, modality, pause, pauseResume
    }

    let context: Context
    let flushInterval: Double
    /// Milliseconds beyond one flush interval a kill may lose; see docs/faults.md.
    let allowance: Int64
    /// The latest kill after start, seconds.
    let longest: Double
    let iioRate = 200

    /// Runs `count` kills, alternating between the sources; returns one tally per source.
    func run(count: Int) throws -> [Tally] {
        let traceTally = Tally("recorder kill -9, trace")
        let iioTally = Tally("recorder kill -9, fake IIO")
        let timeline = try TraceTimeline(path: context.trace)
        let traceData = try context.directory("recorder-trace")
        let iioData = try context.directory("recorder-iio")
        var worst: [Source: (loss: Int, allowed: Int)] = [:]
        var share: [Source: Double] = [:]
        for index in 0..<count {
            let source: Source = index % 2 == 0 ? .trace : .iio
            let tally = source == .trace ? traceTally : iioTally
            tally.runs += 1
            // The first run of each source is killed right after start.
            let killAfter = index < 2 ? 0 : context.uniform(0...longest)
            var action = Action.allCases[context.integer(0..<Action.allCases.count)]
            if killAfter < 0.8 { action = .none }
            let result = try runOnce(
                source: source, data: source == .trace ? traceData : iioData, timeline: timeline,
                killAfter: killAfter, action: action, tally: tally)
            if let result, result.loss > (worst[source]?.loss ?? Int.min) { worst[source] = result }
            if let result, result.allowed > 0 {
                share[source] = max(share[source] ?? 0, Double(max(result.loss, 0)) / Double(result.allowed))
            }
        }
        for (source, tally) in [(Source.trace, traceTally), (.iio, iioTally)] {
            finalChecks(data: source == .trace ? traceData : iioData, runs: tally.runs, tally: tally)
            if let (loss, allowed) = worst[source] {
                tally.worst =
                    "max \(max(loss, 0)) samples lost, \(allowed) allowed there (\(format(flushInterval)) s flush + \(allowance) ms); "
                    + "highest share \(Int(((share[source] ?? 0) * 100).rounded())) % of the allowance"
            }
        }
        return [traceTally, iioTally]
    }

    /// One kill. Returns the loss and what was allowed, if the run got that far.
    private func runOnce(
        source: Source, data: String, timeline: TraceTimeline, killAfter: Double, action: Action, tally: Tally
    ) throws -> (loss: Int, allowed: Int)? {
        var arguments = ["start", "--json", "--flush-interval", format(flushInterval), "--modality", "BICYCLE"]
        var device: FakeIIO?
        switch source {
        case .trace:
            arguments += ["--source", "trace:" + context.trace]
        case .iio:
            let root = try context.directory("sysfs")
            let fake = try FakeIIO(root: root, rate: iioRate)
            fake.start()
            device = fake
            arguments += ["--sysfs-root", root, "--rate", "\(iioRate)", "--source", fake.source]
        }
        defer { device?.finish() }
        let label = "\(source.rawValue) run \(tally.runs) (kill after \(format(killAfter)) s, \(action))"
        let started = try context.capture(arguments, dataDirectory: data)
        let began = Clock.now()
        guard tally.check(started.status == 0, "\(label): capture start: \(started.summary)"),
            let id = (started.object["measurement"] as? NSNumber)?.int64Value,
            let pid = (started.object["pid"] as? NSNumber)?.int32Value
        else { return nil }

        // Lifecycle commands before the kill, at random moments at least 0.3 s after start.
        var commands: [(at: Double, arguments: [String])] = []
        switch action {
        case .none: break
        case .modality: commands = [(context.uniform(0.3...(killAfter - 0.2)), ["modality", "WALKING"])]
        case .pause: commands = [(context.uniform(0.3...(killAfter - 0.2)), ["pause"])]
        case .pauseResume:
            let pause = context.uniform(0.3...(killAfter - 0.4))
            commands = [(pause, ["pause"]), (context.uniform((pause + 0.1)...(killAfter - 0.2)), ["resume"])]
        }
        for command in commands {
            Clock.sleep(began + command.at - Clock.now())
            let outcome = try context.capture(command.arguments, dataDirectory: data)
            tally.check(outcome.status == 0, "\(label): capture \(command.arguments[0]): \(outcome.summary)")
        }
        Clock.sleep(began + killAfter - Clock.now())
        kill(pid, SIGKILL)
        let killedAt = Clock.wallMilliseconds()
        device?.finish()
        guard tally.check(context.waitFor(10) { isGone(pid) }, "\(label): recorder \(pid) still alive after kill -9")
        else { return nil }

        // What survived, straight from the database.
        struct Snapshot {
            var integrity: String
            var record: MeasurementRecord
            var counts: SampleCounts
            var events: [Event]
            var firstSample: Int64?
        }
        let before = try Store.inspect(data) { store in
            Snapshot(
                integrity: try store.integrityCheck(), record: try store.measurement(id), counts: try store.counts(of: id),
                events: try store.events(of: id), firstSample: try firstSampleTime(store, id))
        }
        tally.check(before.integrity == "ok", "\(label): integrity_check after kill: \(before.integrity)")
        tally.check(before.record.isOpen, "\(label): measurement \(id) is \(before.record.status) after the kill")

        // What the source had delivered by the kill, at wall-clock times.
        let delivered: [Int64]
        switch source {
        case .trace:
            // The trace's first sample is delivered when the source starts; it is in the first
            // commit, so the earliest stored sample is it. Nothing stored: the start event is
            // an earlier bound, which can only make the expected count larger.
            delivered = timeline.wallTimes(anchor: before.firstSample ?? before.record.startTime)
        case .iio:
            delivered = device?.writtenTimes ?? []
        }
        // Samples are kept only while capturing: from start or resume to pause or the kill.
        func deliveredBetween(_ start: Int64, _ end: Int64) -> Int {
            delivered.count(atOrBefore: end) - (start == Int64.min ? 0 : delivered.count(atOrBefore: start - 1))
        }
        var expected = 0
        var capturingSince: Int64? = Int64.min
        for event in before.events {
            switch event.type {
            case .lifecyclePause:
                if let since = capturingSince { expected += deliveredBetween(since, event.timestamp) }
                capturingSince = nil
            case .lifecycleResume:
                if capturingSince == nil { capturingSince = event.timestamp }
            default: break
            }
        }
        if let since = capturingSince { expected += deliveredBetween(since, killedAt) }
        let stored = before.counts.total
        let loss = expected - stored
        let window = Int64((flushInterval * 1000).rounded()) + allowance
        let allowed = delivered.count(after: killedAt - window, atOrBefore: killedAt)
        let deliveredByKill = delivered.count(atOrBefore: killedAt)
        context.log("\(label): stored \(stored), expected \(expected), loss \(loss), allowed \(allowed)")
        tally.check(stored <= deliveredByKill, "\(label): \(stored) samples stored, but only \(deliveredByKill) delivered by the kill")
        tally.check(
            loss <= allowed,
            "\(label): \(loss) samples lost (expected \(expected), stored \(stored)), more than one flush interval allows (\(allowed))")

        let status = try context.capture(["status", "--json"], dataDirectory: data)
        tally.check(
            status.status == 0 && status.object["state"] as? String == "interrupted"
                && (status.object["measurement"] as? NSNumber)?.int64Value == id,
            "\(label): capture status after the kill: \(status.summary) \(status.stdout)")
        let stopped = try context.capture(["stop", "--json"], dataDirectory: data)
        tally.check(
            stopped.status == 0 && stopped.object["state"] as? String == "finished",
            "\(label): capture stop after the kill: \(stopped.summary) \(stopped.stdout)")

        let after = try Store.inspect(data) { store in
            (integrity: try store.integrityCheck(), record: try store.measurement(id), counts: try store.counts(of: id),
             last: try store.lastTimestamp(of: id))
        }
        tally.check(after.integrity == "ok", "\(label): integrity_check after stop: \(after.integrity)")
        tally.check(!after.record.isOpen, "\(label): measurement \(id) still \(after.record.status) after stop")
        tally.check(after.counts == before.counts, "\(label): stop changed the counts: \(before.counts) → \(after.counts)")
        tally.check(
            after.record.endTime != nil && after.record.endTime == after.last,
            "\(label): stopped at \(after.record.endTime ?? -1), but the last committed data is at \(after.last ?? -1)")
        let shown = try context.capture(["show", String(id), "--json"], dataDirectory: data)
        let counts = shown.object["counts"] as? [String: Any] ?? [:]
        let shownTotal = ["accelerometer", "gyroscope", "magnetometer", "pressure", "locations"].reduce(0) {
            $0 + ((counts[$1] as? NSNumber)?.intValue ?? 0)
        }
        tally.check(shown.status == 0 && shownTotal == stored, "\(label): capture show counts \(counts), stored \(stored)")
        return (loss, allowed)
    }

    /// The earliest stored sample of a measurement, if any.
    private func firstSampleTime(_ store: Store, _ id: Int64) throws -> Int64? {
        var times: [Int64] = []
        for sensor in MotionSensor.allCases {
            var first: Int64?
            try store.forEachBatch(of: id, sensor: sensor) { batch in
                if first == nil { first = batch.firstTime }
            }
            if let first { times.append(first) }
        }
        if let fix = try store.fixes(of: id).first { times.append(fix.timestamp) }
        if let pressure = try store.pressures(of: id).first { times.append(pressure.timestamp) }
        return times.min()
    }

    /// After all runs: one finished measurement per run, and a sound database.
    private func finalChecks(data: String, runs: Int, tally: Tally) {
        guard runs > 0 else { return }
        do {
            let (integrity, records) = try Store.inspect(data) { store in (try store.integrityCheck(), try store.measurements()) }
            tally.check(integrity == "ok", "final integrity_check: \(integrity)")
            tally.check(
                records.count == runs && records.allSatisfy { !$0.isOpen },
                "\(records.count) measurements (\(records.filter(\.isOpen).count) open) after \(runs) runs")
        } catch {
            tally.check(false, "final check: \(error)")
        }
    }
}

func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
