import ArgumentParser
import CaptureConfig
import CaptureCore
import CaptureRecorder
import CaptureStorage
import CaptureUpload
import Foundation

struct Sync: AsyncParsableCommand {
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
            `capture prune`). Each pass refreshes a device login (`capture login`) once half its life has passed, \
            also when nothing waits; a login the issuer ended is said once per pass (exit 77), \
            and the first pass after a new login delivers what waited.

            EXIT CODES: 0 delivered, or nothing due; 75 the collector did not answer or a \
            measurement failed (the next attempt time is stored); 77 token rejected or the \
            login is gone; 78 no collector configured.
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

    func run() async throws {
        let device = try data.device()
        let directory = data.path
        guard let store = try data.existingStore() else {
            try say(Report(decision: "nothing-waiting", waiting: 0), "sync: nothing waits (no measurements yet)")
            return
        }
        let options = UploadRun.Options(
            appVersion: BuildInfo.version,
            retryPolicy: .init(initialDelay: 250, maximumDelay: 30_000, budget: Int64(device.retryBudget.value.seconds * 1000)),
            privacyZones: device.privacyZones.value, payloadLimit: device.payloadLimit?.bytes)
        var pass = DeliveryPass(
            store: store, dataDirectory: directory, policy: device.delivery, retention: device.retention, options: options,
            settings: { try device.uploadSettings() })
        pass.login = try device.oauth()
        switch try await pass.run(force: now, note: Self.log) {
        case .busy(let waiting):
            try say(
                Report(decision: "busy", reason: "another upload is running", waiting: waiting),
                "sync: another upload is running in \(directory); nothing to do")
        case .nothingWaiting:
            try say(Report(decision: "nothing-waiting", waiting: 0), "sync: nothing waits")
        case .notYet(let reason, let waiting):
            try say(Report(decision: "not-yet", reason: reason, waiting: waiting), "sync: not yet: \(reason)")
        case .backingOff(let until, let state, let waiting):
            try say(
                Report(decision: "backing-off", reason: state.lastError, waiting: waiting, nextAttemptAt: until),
                "sync: \(waiting) waiting; \(state.failures) pass(es) failed (\(state.lastError ?? "?")); "
                    + "next attempt at \(TextFormat.time(until)); --now tries anyway")
        case .metered(let waiting):
            try say(
                Report(decision: "metered", reason: "the connection is metered", waiting: waiting, metered: Metering.metered.rawValue),
                "sync: \(waiting) waiting; not sent: NetworkManager says the connection is metered (upload.unmetered_only)")
        case .unreachable(let state, let waiting, let metering):
            try say(
                Report(
                    decision: "unreachable", reason: state.lastError, waiting: waiting, nextAttemptAt: state.nextAttemptAt,
                    metered: metering?.rawValue),
                "sync: \(waiting) waiting; \(state.lastError ?? "?"); next attempt at \(state.nextAttemptAt.map(TextFormat.time) ?? "?")")
            throw ExitCode(ExitStatus.uploadIncomplete.rawValue)
        case .loginGone(let login, let waiting):
            let why = "the login to \(login.issuer) is gone (\(login.goneReason ?? "expired"))"
            try say(Report(decision: "login-gone", reason: why, waiting: waiting), "sync: \(waiting) waiting; \(why): run `capture login`")
            throw ExitCode(ExitStatus.tokenRejected.rawValue)
        case .delivered(let report, let state, let waiting, let metering):
            if output.json {
                try printJSON(
                    Report(
                        decision: "delivered", waiting: waiting, results: report.results, nextAttemptAt: state.nextAttemptAt,
                        metered: metering?.rawValue))
            } else {
                report.results.forEach { print(Upload.line($0)) }
                if let next = state.nextAttemptAt { print("sync: next attempt at \(TextFormat.time(next))") }
            }
            try report.check()
        }
    }

    /// What the pass notes, at info level (-v) but for an unknown metering, a warning.
    @Sendable static func log(_ note: DeliveryPass.Note) {
        switch note {
        case .delivering(let reason): Log.info("sync: delivering: \(reason)")
        case .meteringUnknown: Log.warning("capture: warning: whether the connection is metered is unknown (no NetworkManager); sending")
        case .pruned(let count): Log.info("sync: pruned \(count) measurement(s) as retention.* allows")
        case .loginRefreshed(let login): Log.info("sync: login refreshed; it lasts until \(TextFormat.time(login.expiresAt))")
        case .loginNotRefreshed(let why): Log.warning("capture: warning: the login is due for a refresh that failed (\(why)); the next sync tries again")
        }
    }

    private func say(_ report: Report, _ line: String) throws {
        if output.json { try printJSON(report) } else { print(line) }
    }
}

/// With upload.auto, `capture sync` in the background once a measurement has finished
/// (``CaptureRecorder/AutomaticDelivery``).
enum AutomaticDelivery {
    static func startIfConfigured(directory: String, device: DeviceConfiguration) {
        guard device.delivery.automatic else { return }
        switch CaptureRecorder.AutomaticDelivery.start(directory: directory) {
        case .started(let pid, let log): Log.info("delivering in the background (pid \(pid)); see \(log)")
        case .failed(let why): Log.warning("capture: warning: cannot start the automatic delivery: \(why)")
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
            measurement's age, the database size, when the device login ends unless refreshed \
            and whether it is gone. Reads only; without a store every figure is 0.
            """)
    @OptionGroup var data: DataDirectoryOptions

    func run() throws {
        let login = LoginLifetime.report(loginFile: data.path + "/" + LoginLifetime.fileName, now: Delivery.nowMs())
        print(try DeliveryMetrics.text(of: try data.existingStore(), now: Delivery.nowMs(), login: login), terminator: "")
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
        let device = try data.device()
        guard let store = try data.existingStore() else {
            if output.json { try printJSON(PruneReport(dryRun: dryRun)) } else { print("prune: nothing stored") }
            return
        }
        let report = try store.prune(device.retention, now: Delivery.nowMs(), directory: data.path, dryRun: dryRun)
        if output.json {
            try printJSON(report)
            return
        }
        let verb = dryRun ? "would remove" : "removed"
        for removed in report.removed {
            print("measurement \(removed.measurement): \(verb) (\(removed.reason))")
        }
        print(
            "prune: \(report.removed.count) \(verb); database \(ByteCount.text(report.bytesBefore)) → "
                + "\(ByteCount.text(report.bytesAfter))"
                + (report.overBudget ? "; still over retention.max_store_size: nothing more may go" : ""))
    }
}
