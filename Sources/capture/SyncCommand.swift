import ArgumentParser
import CaptureConfig
import CaptureWiring
import CaptureCore
import CaptureRecorder
import CaptureStorage
import CaptureUpload
import Foundation
import Logging

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
            and the first pass after a new login delivers what waited. With fleet.push_url, a \
            pass pushes the heartbeat once fleet.interval has passed (a failure is a warning).

            EXIT CODES: 0 delivered, or nothing due; 75 the collector did not answer or a \
            measurement failed (the next attempt time is stored); 77 token rejected or the \
            login is gone; 78 no collector configured; 73 disk full, nothing delivered to prune.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Deliver whatever waits now, whatever the policy and the backoff say.") var now = false

    func run() async throws {
        let device = try data.device()
        let directory = data.path
        let outcome: DeliveryPass.Outcome
        if let store = try data.existingStore() {
            var pass = DeliveryPass(
                store: store, dataDirectory: directory, policy: try device.delivery(), retention: try device.retention(),
                options: device.uploadOptions(appVersion: BuildInfo.version),
                settings: { try device.uploadSettings(options: []) })
            pass.login = try device.oauth()
            outcome = try await pass.run(force: now, note: Self.log)
        } else {
            outcome = await DeliveryPass.withoutStore(login: try device.oauth(), now: Delivery.nowMs(), note: Self.log)
        }
        if output.json { try printJSON(outcome.report) } else { Self.lines(outcome, directory: directory).forEach { print($0) } }
        do { _ = try await device.beat(version: BuildInfo.version, force: false) } catch { Log.logger.warning("heartbeat: \(CLIError.from(error).message)") }
        switch outcome {
        case .unreachable: throw ExitCode(ExitStatus.uploadIncomplete.rawValue)
        case .loginGone: throw ExitCode(ExitStatus.tokenRejected.rawValue)
        case .delivered(let report, _, _, _): try report.check()
        default: break
        }
    }

    /// What a pass did, for a person, with what to type about a backoff or a lost login.
    static func lines(_ outcome: DeliveryPass.Outcome, directory: String) -> [String] {
        var lines = outcome.lines(directory: directory)
        switch outcome {
        case .backingOff: lines[0] += "; --now tries anyway"
        case .loginGone: lines[0] += ": run `capture login`"
        default: break
        }
        return lines
    }

    /// What the pass notes, at info level (-v) but for a warning.
    @Sendable static func log(_ note: DeliveryPass.Note) {
        if note.isWarning { Log.logger.warning("\(note.line)") } else { Log.logger.info("\(note.line)") }
    }
}

struct Metrics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print delivery and store figures in the Prometheus text format.",
        discussion: """
            For node_exporter's textfile collector: `capture metrics > \
            /var/lib/node_exporter/textfile_collector/capture.prom.$$ && mv …` (write, then \
            rename, so that node_exporter never reads half a file). Measurements by delivery \
            state (delivered, waiting, failed, skipped, discarded, open), upload attempts and \
            retries, failed sync passes in a row, the next attempt time, the oldest waiting measurement's \
            age, the last delivery's time, the database size, whether the recorder waits for room in a full store, when the device \
            login ends unless refreshed and whether it is gone. Reads only; without a store every figure is 0.

            --push sends them instead, with the heartbeat's figures, to the Pushgateway of \
            fleet.push_url now (docs/fleet.md); `capture sync` does every fleet.interval. \
            EXIT CODES: 0 pushed; 69 no answer; 77 credentials refused; 78 no fleet.push_url.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @Flag(help: "Push the heartbeat to fleet.push_url now instead of printing.") var push = false

    func run() async throws {
        if push {
            guard try await data.device().beat(version: BuildInfo.version, force: true) else { throw CLIError(.configuration, "no fleet.push_url is set (docs/fleet.md)") }
            return
        }
        print(try DeviceConfiguration.metrics(of: try data.existingStore(), directory: data.path), terminator: "")
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
            try output.print(PruneReport(dryRun: dryRun), "prune: nothing stored")
            return
        }
        let report = try store.prune(try device.retention(), now: Delivery.nowMs(), directory: data.path, dryRun: dryRun)
        if output.json { try printJSON(report) } else { report.lines.forEach { print($0) } }
    }
}
