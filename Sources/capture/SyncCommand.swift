import ArgumentParser
import CaptureConfig
import CaptureRecorder
import CaptureStorage
import CaptureUpload
import Foundation
import Glibc

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Deliver finished measurements as the upload policy says (what the timer runs).",
        discussion: """
            One pass of the policy in the configuration (`capture config`): upload when at \
            least upload.min_waiting finished measurements wait, or the oldest was stopped \
            longer than upload.max_age ago; --now uploads whatever waits. Before any session it \
            checks that the collector answers at all (a GET of its URL, no token), and with \
            upload.unmetered_only that NetworkManager does not call the connection metered \
            (without NetworkManager that is unknown, and the pass goes on).

            A pass that cannot deliver (collector unreachable, a measurement failed) is \
            remembered: the next pass waits 1 minute, doubling per failure up to 6 hours, \
            ±20 % at random, so that a timer does not hammer a collector that is down; `capture \
            status` shows when. --now ignores the wait. A delivered pass clears it.

            One uploader per data directory: while `capture upload` or another sync runs, sync \
            says so and exits 0. With upload.auto, `capture stop`, a recording that ends by \
            itself and `capture replay` start `capture sync` in the background (its lines go to \
            <data dir>/sync.log). After every pass (delivered or not), sync prunes as retention.* allows (see \
            `capture prune`).

            EXIT CODES: 0 delivered, or nothing due; 75 the collector did not answer or a \
            measurement failed (the next attempt time is stored); 77 token rejected; 78 no \
            collector configured.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Deliver whatever waits now, whatever the policy and the backoff say.") var now = false

    /// What `--json` prints.
    struct Report: Encodable {
        var decision: String
        var reason: String?
        var waiting: Int
        var results: [UploadResult] = []
        var nextAttemptAt: Int64?
        var metered: String?
    }

    func run() throws {
        try execute {
            let device = try data.device()
            let directory = data.path
            guard let store = try data.existingStore() else {
                try say(Report(decision: "nothing-waiting", waiting: 0), "sync: nothing waits (no measurements yet)")
                return
            }
            let held: Void? = try UploaderLock.whileHeld(directory: directory) {
                // Whatever the pass decided (nothing waits, backing off, the collector down),
                // retention applies: what it allows goes now, so that an age limit or the store
                // budget does not wait for the next delivery.
                do {
                    try pass(store: store, device: device, directory: directory)
                } catch {
                    try? prune(store, device: device, directory: directory)
                    throw error
                }
                try prune(store, device: device, directory: directory)
            }
            if held == nil {
                try say(
                    Report(decision: "busy", reason: "another upload is running", waiting: try store.deliveryTotals().waiting),
                    "sync: another upload is running in \(directory); nothing to do")
            }
        }
    }

    /// One pass, holding the uploader lock.
    private func pass(store: Store, device: DeviceConfiguration, directory: String) throws {
        let policy = device.delivery
        let totals = try store.deliveryTotals()
        var state = try store.deliveryState()
        let clock = Self.nowMs()
        switch Delivery.decide(totals: totals, state: state, policy: policy, now: clock, force: now) {
        case .nothingWaiting:
            try say(Report(decision: "nothing-waiting", waiting: 0), "sync: nothing waits")
            return
        case .notYet(let reason):
            try say(Report(decision: "not-yet", reason: reason, waiting: totals.waiting), "sync: not yet: \(reason)")
            return
        case .backingOff(let until):
            try say(
                Report(decision: "backing-off", reason: state.lastError, waiting: totals.waiting, nextAttemptAt: until),
                "sync: \(totals.waiting) waiting; \(state.failures) pass(es) failed (\(state.lastError ?? "?")); "
                    + "next attempt at \(Format.time(until)); --now tries anyway")
            return
        case .deliver(let reason):
            Log.info("sync: delivering: \(reason)")
        }
        var metered: Metering?
        if policy.unmeteredOnly {
            let found = Metering.current()
            metered = found
            if found == .metered {
                try say(
                    Report(decision: "metered", reason: "the connection is metered", waiting: totals.waiting, metered: found.rawValue),
                    "sync: \(totals.waiting) waiting; not sent: NetworkManager says the connection is metered (upload.unmetered_only)")
                return
            }
            if found == .unknown {
                Log.warning("capture: warning: whether the connection is metered is unknown (no NetworkManager); sending")
            }
        }
        let settings = try device.uploadSettings()
        state.lastAttemptAt = clock
        if let problem = blockingProbe(settings.collectorURL) {
            state.failures += 1
            state.lastError = "the collector did not answer: \(problem)"
            state.nextAttemptAt = Delivery.nextAttempt(afterFailures: state.failures, now: clock)
            try store.recordDeliveryPass(state)
            try say(
                Report(
                    decision: "unreachable", reason: state.lastError, waiting: totals.waiting,
                    nextAttemptAt: state.nextAttemptAt, metered: metered?.rawValue),
                "sync: \(totals.waiting) waiting; \(state.lastError!); next attempt at \(Format.time(state.nextAttemptAt!))")
            throw ExitCode(ExitStatus.uploadIncomplete.rawValue)
        }
        let options = UploadRun.Options(
            appVersion: BuildInfo.version,
            retryPolicy: .init(initialDelay: 250, maximumDelay: 30_000, budget: Int64(device.retryBudget.value.seconds * 1000)),
            privacyZones: device.privacyZones.value, payloadLimit: device.payloadLimit?.bytes)
        let upload = UploadRun(store: store, dataDirectory: directory, settings: settings, options: options)
        let report = try blocking { try await upload.run(.waiting(includingSkipped: false)) }
        if report.missed.isEmpty && !report.tokenRejected {
            state = DeliveryState(failures: 0, lastAttemptAt: clock)
        } else {
            state.failures += 1
            state.lastError = report.tokenRejected ? "the token was rejected" : "\(report.missed.count) measurement(s) failed"
            state.nextAttemptAt = Delivery.nextAttempt(afterFailures: state.failures, now: clock)
        }
        try store.recordDeliveryPass(state)
        if output.json {
            try printJSON(
                Report(
                    decision: "delivered", waiting: try store.deliveryTotals().waiting, results: report.results,
                    nextAttemptAt: state.nextAttemptAt, metered: metered?.rawValue))
        } else {
            report.results.forEach { print(Upload.line($0)) }
            if let next = state.nextAttemptAt { print("sync: next attempt at \(Format.time(next))") }
        }
        try report.check()
    }

    /// Removes what the retention policy allows (after every pass).
    private func prune(_ store: Store, device: DeviceConfiguration, directory: String) throws {
        let pruned = try store.prune(device.retention, now: Self.nowMs(), directory: directory)
        if !pruned.removed.isEmpty {
            Log.info("sync: pruned \(pruned.removed.count) measurement(s) as retention.* allows")
        }
    }

    /// `nil` when the collector answers, else why not.
    private func blockingProbe(_ url: String) -> String? {
        do {
            return try blocking { await Delivery.probe(url) }
        } catch {
            return "\(error)"
        }
    }

    private func say(_ report: Report, _ line: String) throws {
        if output.json { try printJSON(report) } else { print(line) }
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// With upload.auto: a `capture sync` of its own, started in the background when a measurement
/// has finished, so that the ride is delivered without anyone typing a command. It runs in its
/// own session (closing the shell does not end it), reads nothing, and writes its lines to
/// <data dir>/sync.log; nothing of the caller's stays open in it.
enum AutomaticDelivery {
    static func startIfConfigured(directory: String, device: DeviceConfiguration) {
        guard device.delivery.automatic else { return }
        let log = directory + "/sync.log"
        let logFD = PrivateFiles.open(log, O_WRONLY | O_APPEND)
        guard logFD >= 0 else {
            Log.warning("capture: warning: cannot start the automatic delivery: cannot open \(log)")
            return
        }
        defer { close(logFD) }
        let spawned = DetachedProcess.spawn(
            DetachedProcess.currentExecutable, ["capture", "sync", "--data-dir", directory], log: logFD)
        switch spawned {
        case .success(let pid): Log.info("delivering in the background (pid \(pid)); see \(log)")
        case .failure(let error):
            Log.warning("capture: warning: cannot start the automatic delivery: \(String(cString: strerror(error.code.rawValue)))")
        }
    }
}

struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print delivery and store figures in the Prometheus text format.",
        discussion: """
            For node_exporter's textfile collector: `capture metrics > \
            /var/lib/node_exporter/textfile_collector/capture.prom.$$ && mv …` (write, then \
            rename, so that node_exporter never reads half a file). Measurements by delivery \
            state (delivered, waiting, failed, skipped, discarded, open), upload attempts and \
            retries, failed sync passes in a row, the next attempt time, the oldest waiting \
            measurement's age and the database size. Reads only; without a store every figure is 0.
            """)
    @OptionGroup var data: DataDirectoryOptions

    func run() throws {
        try execute {
            let store = try data.existingStore()
            let totals = try store?.deliveryTotals() ?? DeliveryTotals()
            let state = try store?.deliveryState() ?? DeliveryState()
            let open = try store?.measurements().filter(\.isOpen).count ?? 0
            let size = try store?.databaseSize() ?? 0
            let now = Sync.nowMs()
            var text = ""
            func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
                text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
                for sample in samples { text += name + sample.labels + " " + sample.value + "\n" }
            }
            metric(
                "capture_measurements", "gauge", "Measurements in the store by delivery state.",
                [
                    ("delivered", totals.delivered), ("waiting", totals.waiting), ("failed", totals.failed),
                    ("skipped", totals.skipped), ("discarded", totals.discarded), ("open", open),
                ].map { ("{state=\"\($0.0)\"}", String($0.1)) })
            metric(
                "capture_upload_attempts_total", "counter", "Upload runs that tried a measurement, over all measurements.",
                [("", String(totals.attempts))])
            metric(
                "capture_upload_retries_total", "counter", "Requests retried within uploads, over all measurements.",
                [("", String(totals.retries))])
            metric(
                "capture_sync_consecutive_failures", "gauge", "Sync passes in a row that could not deliver.",
                [("", String(state.failures))])
            metric(
                "capture_sync_next_attempt_timestamp_seconds", "gauge",
                "When the next sync pass may try (Unix seconds; 0: any time).",
                [("", String(format: "%.3f", Double(state.nextAttemptAt ?? 0) / 1000))])
            metric(
                "capture_oldest_waiting_age_seconds", "gauge", "How long the oldest waiting measurement has waited (0: none).",
                [("", String(format: "%.3f", Double(totals.oldestWaitingSince.map { max(0, now - $0) } ?? 0) / 1000))])
            metric("capture_store_bytes", "gauge", "Size of the database file.", [("", String(size))])
            print(text, terminator: "")
        }
    }
}

struct Prune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove what the retention policy allows and give the space back.",
        discussion: """
            Applies retention.* from the configuration (`capture config`): a measurement the \
            collector confirmed goes once it was delivered more than retention.keep_uploaded_days \
            ago, or earlier while the store is over retention.max_store_size (earliest \
            delivered first). A measurement nobody received is never removed, unless \
            retention.drop_unsent is `oldest`: then, only while still over budget, the oldest \
            finished ones go, each counted as discarded (`capture status`, `capture metrics`). \
            The open measurement is never touched. Each removal is one transaction with its \
            record, so a crash loses nothing unsent. The freed space is given back to the file \
            system. `capture sync` prunes the same way after a delivery.

            EXIT CODES: 0 done (also when the store is still over budget: the report says so), \
            74 database error, 78 bad configuration.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Say what would be removed; change nothing.") var dryRun = false

    func run() throws {
        try execute {
            let device = try data.device()
            guard let store = try data.existingStore() else {
                if output.json { try printJSON(PruneReport(dryRun: dryRun)) } else { print("prune: nothing stored") }
                return
            }
            let report = try store.prune(device.retention, now: Sync.nowMs(), directory: data.path, dryRun: dryRun)
            if output.json {
                try printJSON(report)
                return
            }
            let verb = dryRun ? "would remove" : "removed"
            for removed in report.removed {
                print("measurement \(removed.measurement): \(verb) (\(removed.reason))")
            }
            print(
                "prune: \(report.removed.count) \(verb); database \(Progress.bytes(report.bytesBefore)) → "
                    + "\(Progress.bytes(report.bytesAfter))"
                    + (report.overBudget ? "; still over retention.max_store_size: nothing more may go" : ""))
        }
    }
}
