import CaptureStorage
import Foundation
import Glibc

/// A simulated week of a device that nobody tends (issue 11.8): rides three times a day, the
/// timer's `capture sync` every hour, the collector unreachable half of the time (two of each
/// day's four six-hour blocks, chosen at random), and a store budget (`retention.max_store_size`)
/// of six rides: more than can wait unsent at once (at most five: a day down from noon to noon
/// holds three rides, and the sync's backoff, at most 7.2 hours, two more), fewer than the run
/// records (at least three days), so delivered rides must be pruned to make room.
///
/// Time is simulated with Debian's `faketime`: every `capture` command runs at its moment of the
/// week, so backoff, `max_age` and retention see the week's clock, while a week takes about a
/// minute. Checks: every ride reaches the collector exactly once (by the end, after the
/// collector stays up), nothing unsent is ever removed, and after every pass of the timer the
/// store is within its budget.
struct Week {
    let context: Context
    let days: Int
    let ridesPerDay = 3
    /// Rides the store budget holds.
    static let budgetRides: Int64 = 6
    /// The fewest days whose rides outgrow the budget.
    static let minimumDays = 3
    /// The simulated week begins 2027-03-01 00:00 UTC.
    static let begin: Int64 = 1_803_859_200_000
    static let hour: Int64 = 3_600_000
    static let faketime = "/usr/bin/faketime"

    /// Throws unless Debian's `faketime` is installed: the week and the month run every command
    /// under it.
    static func requireFaketime() throws {
        guard access(faketime, X_OK) == 0 else {
            throw CampaignError("\(faketime) is missing: run scripts/setup (Debian's faketime package)")
        }
    }

    func run() throws -> Tally {
        let tally = Tally("a week of rides (\(days) d), collector down half the time")
        try Self.requireFaketime()
        let root = try context.directory("week")
        let data = root + "/data"
        let text = try TraceText(path: context.trace)
        let rideLength: Int64 = 20_000
        let span = max(text.lastTime - text.firstTime - rideLength, 1)
        var rideNumber = 0
        /// Writes the next ride, starting at `start` (simulated Unix ms).
        func nextRide(at start: Int64) throws -> String {
            let path = root + "/ride-\(rideNumber).trace"
            let window = text.window(from: Int64(rideNumber) * 7_000 % span, length: rideLength, shiftedTo: start)
            try window.write(toFile: path, atomically: false, encoding: .utf8)
            rideNumber += 1
            return path
        }

        // The budget: the empty store plus six rides, measured with two rides in a scratch store.
        let scratch = try context.directory("week-scratch")
        var sizes: [Int64] = []
        for index in 0..<2 {
            let ride = try nextRide(at: Self.begin - Int64(2 - index) * Self.hour)
            let replay = try context.capture(["replay", ride], dataDirectory: scratch)
            guard replay.status == 0 else { throw CampaignError("capture replay \(ride): \(replay.summary)") }
            sizes.append(try Store.inspect(scratch) { try $0.databaseSize() })
        }
        rideNumber = 0
        let perRide = max(sizes[1] - sizes[0], 4_096)
        let budget = sizes[0] - perRide + Self.budgetRides * perRide

        // Stopped and brought back on the same port many times: a port no port-0 bind can take.
        var collector = try CollectorRun(context: context, arguments: [], restartable: true)
        defer { collector.stop() }
        let config = root + "/config.yaml"
        try collector.deliveryConfiguration(in: root, budget: budget).write(toFile: config, atomically: true, encoding: .utf8)

        // Two of each day's four blocks down, at random.
        var down: [Bool] = []
        for _ in 0..<days {
            var blocks = [true, true, false, false]
            blocks.shuffle(using: &context.random)
            down += blocks
        }
        var up = true
        var rides: [Int64] = []
        var worstSize: Int64 = 0
        var downHours = 0
        var unreachable = 0
        func sync(at time: Int64, now: Bool = false) throws -> Outcome {
            let outcome = try capture(["sync", "--json"] + (now ? ["--now"] : []), at: time, data: data, config: config)
            tally.check(
                [0, 75].contains(outcome.status), "capture sync at \(Self.iso(time)): \(outcome.summary)")
            if outcome.object["decision"] as? String == "unreachable" { unreachable += 1 }
            return outcome
        }
        /// Nothing unsent removed, and the store within its budget.
        func checkStore(at time: Int64) throws {
            let (present, uploaded, discarded, size) = try Store.inspect(data) { store in
                (
                    Set(try store.measurements().map(\.id)),
                    Set(try store.uploads().filter { $0.value.status == .uploaded }.map(\.key)),
                    try store.discardedCount(), try store.databaseSize()
                )
            }
            worstSize = max(worstSize, size)
            tally.check(discarded == 0, "\(Self.iso(time)): \(discarded) ride(s) discarded though drop_unsent is never")
            tally.check(
                size <= budget,
                "\(Self.iso(time)): the store holds \(size) bytes, over its budget of \(budget); "
                    + "\(present.subtracting(uploaded).count) of its \(present.count) rides unsent")
            let stored = Set(try collector.stored().map(\.measurement))
            for id in rides where !present.contains(id) {
                tally.check(stored.contains(String(id)), "\(Self.iso(time)): ride \(id) was removed but the collector never received it")
            }
        }

        for hour in 0..<(days * 24) {
            let time = Self.begin + Int64(hour) * Self.hour
            let shouldBeUp = !down[hour / 6]
            if !shouldBeUp { downHours += 1 }
            if shouldBeUp != up {
                if shouldBeUp {
                    collector = try CollectorRun(context: context, arguments: [], continuing: collector)
                } else {
                    collector.stop()
                }
                up = shouldBeUp
            }
            // Rides at 07:00, 12:00 and 17:00, replayed a minute after they end.
            if [7, 12, 17].prefix(ridesPerDay).contains(hour % 24) {
                let ride = try nextRide(at: time)
                let replay = try capture(["replay", ride, "--json"], at: time + rideLength + 60_000, data: data, config: config)
                guard replay.status == 0, let id = (replay.object["measurement"] as? NSNumber)?.int64Value else {
                    throw CampaignError("capture replay \(ride): \(replay.summary)")
                }
                rides.append(id)
            }
            // The timer, at half past.
            _ = try sync(at: time + Self.hour / 2)
            try checkStore(at: time + Self.hour / 2)
        }
        // The week is over and the collector stays up: the timer goes on until nothing waits.
        if !up { collector = try CollectorRun(context: context, arguments: [], continuing: collector) }
        var time = Self.begin + Int64(days * 24) * Self.hour
        var passes = 0
        while passes < 12 {
            let outcome = try sync(at: time)
            try checkStore(at: time)
            passes += 1
            if outcome.object["decision"] as? String == "nothing-waiting" { break }
            time += 6 * Self.hour
        }
        let stored = try collector.stored()
        tally.runs = rides.count
        tally.check(rides.count == days * ridesPerDay, "\(rides.count) rides recorded, expected \(days * ridesPerDay)")
        for id in rides {
            let copies = stored.filter { $0.measurement == String(id) }.count
            tally.check(copies == 1, "ride \(id) reached the collector \(copies) times")
        }
        tally.check(stored.count == rides.count, "the collector holds \(stored.count) rides, \(rides.count) were recorded")
        let pruned = try Store.inspect(data) { try $0.prunedDeliveredCount() }
        tally.check(pruned > 0, "the budget never made the timer prune a delivered ride")
        tally.check(unreachable > 0, "the collector was never found down")
        tally.worst = "store at most \(worstSize / 1024) KiB of \(budget / 1024) KiB; \(pruned) delivered rides pruned; "
            + "down \(downHours) of \(days * 24) h, \(unreachable) passes found it down"
        Self.sweepFaketimeLeftovers()
        return tally
    }

    /// `faketime -f @TIME capture ARGS --data-dir DATA` with only the given configuration.
    private func capture(_ arguments: [String], at time: Int64, data: String, config: String) throws -> Outcome {
        context.log("[\(Self.iso(time))] capture \(arguments.joined(separator: " "))")
        Self.sweepFaketimeLeftovers()
        let child = try Child(
            "/usr/bin/env",
            ["-i", "PATH=/usr/bin:/bin", "HOME=\(data)/../home", "CAPTURE_CONFIG=\(config)",
             Self.faketime, "--exclude-monotonic", "-f", "@" + Self.faketimeText(time), context.capture]
                + arguments + ["--data-dir", data],
            directory: context.work, name: context.outputName(arguments.first ?? "capture"))
        guard let status = child.wait(seconds: 120) else {
            throw CampaignError("capture \(arguments.joined(separator: " ")) did not end within 120 s")
        }
        return Outcome(status: status, stdout: child.stdout, stderr: child.stderr)
    }

    /// Removes the semaphores and shared memory (`/dev/shm/sem.faketime_sem_PID`,
    /// `/dev/shm/faketime_shm_PID`) of `faketime` wrappers that are gone: a wrapper killed with
    /// SIGKILL leaves them behind, and a later wrapper given the same pid (pids wrap at
    /// `pid_max`, 32768 here) then fails with "faketime: sem_open: File exists".
    static func sweepFaketimeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm") else { return }
        for name in names where name.hasPrefix("sem.faketime_sem_") || name.hasPrefix("faketime_shm_") {
            guard let pid = name.split(separator: "_").last.flatMap({ pid_t($0) }), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink("/dev/shm/" + name)
        }
    }

    /// `YYYY-MM-DD hh:mm:ss` in UTC, as faketime takes an absolute time.
    static func faketimeText(_ time: Int64) -> String {
        var seconds = time_t(time / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
            parts.tm_min, parts.tm_sec)
    }

    static func iso(_ time: Int64) -> String { faketimeText(time).replacingOccurrences(of: " ", with: "T") + "Z" }
}
