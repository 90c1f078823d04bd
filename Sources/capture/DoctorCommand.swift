import ArgumentParser
import CaptureConfig
import CaptureCore
import CaptureRecorder
import CaptureSensors
import CaptureStorage
import CaptureUpload
import Foundation
import Glibc
import Synchronization

/// `capture doctor`: is this device ready to record and deliver, and if not, what to do.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this device's setup, one line per check, and say what to do about each problem.",
        discussion: """
            Checks, in order: the configuration (file, environment, flags); the data directory \
            (exists, only its owner can read it); the store (SQLite's quick_check); a \
            measurement left open by a recorder that is gone; upload sessions left behind; free \
            disk against the store budget (retention.max_store_size); each source of \
            capture.sources (or, with none configured, each one `capture start` would find), \
            watched for --seconds: it opens and delivers, at the rate it was set to where it was \
            set one; a GNSS fix and how far the host clock is from GNSS time; the collector \
            (answers at all, and takes the token, with a status query for a session that does \
            not exist: nothing is uploaded). A check that cannot apply (no collector configured) \
            says so and passes.

            Each line: pass, warn or FAIL, the check, what was found and, for a problem, what to \
            do. A summary line ends the report. --json prints {checks: [{check, status, detail, \
            advice}], passed, warnings, failed}.

            EXIT CODES: 0 no check failed (warnings allowed); 1 at least one check failed; \
            64 bad arguments.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Option(help: ArgumentHelp("How long each source is watched (0: only open it).", valueName: "seconds"))
    var seconds: Double = 3

    @Option(help: "Where sys/bus/iio/devices and dev are looked up.")
    var sysfsRoot = "/"

    /// One check's outcome.
    struct Check: Encodable {
        enum Status: String, Encodable { case pass, warn, fail }
        var check: String
        var status: Status
        var detail: String
        var advice: String?

        static func pass(_ check: String, _ detail: String) -> Check { Check(check: check, status: .pass, detail: detail) }
        static func warn(_ check: String, _ detail: String, _ advice: String) -> Check {
            Check(check: check, status: .warn, detail: detail, advice: advice)
        }
        static func fail(_ check: String, _ detail: String, _ advice: String) -> Check {
            Check(check: check, status: .fail, detail: detail, advice: advice)
        }
    }

    struct Report: Encodable {
        var checks: [Check]
        var passed: Int
        var warnings: Int
        var failed: Int
    }

    func validate() throws {
        guard seconds >= 0, seconds <= 600 else { throw ValidationError("--seconds: 0 to 600") }
    }

    func run() throws {
        var checks: [Check] = []
        // The configuration first: the other checks go on with the defaults if it is broken.
        let device: DeviceConfiguration
        do {
            device = try data.device()
            let place = device.file.map { "\($0.path) read" } ?? "no configuration file (looked for \(device.filePlace)); defaults"
            checks.append(.pass("configuration", place))
        } catch {
            checks.append(.fail("configuration", "\(error)", "fix the value it names (docs/configuration.md; `capture config` shows the result)"))
            guard let fallback = try? DeviceSettings.load(data.configFlags, file: "/dev/null") else {
                throw ExitCode(1)
            }
            device = fallback
        }
        let directory = device.dataDirectory.value
        checks += Self.directory(directory)
        let store = FileManager.default.fileExists(atPath: directory + "/capture.sqlite") ? try? Store(directory: directory) : nil
        checks += Self.store(store, directory: directory)
        checks.append(Self.disk(directory, store: store, retention: device.retention))
        checks += sources(device)
        checks += Self.collector(device)

        let report = Report(
            checks: checks, passed: checks.filter { $0.status == .pass }.count,
            warnings: checks.filter { $0.status == .warn }.count, failed: checks.filter { $0.status == .fail }.count)
        if output.json {
            try printJSON(report)
        } else {
            let width = min(checks.map(\.check.count).max() ?? 0, 16) + 2
            for check in checks {
                let word = check.status == .fail ? "FAIL" : check.status.rawValue
                let name = check.check.count + 2 > width ? check.check + "  " : check.check.padding(toLength: width, withPad: " ", startingAt: 0)
                var line = word.padding(toLength: 6, withPad: " ", startingAt: 0) + name + check.detail
                if let advice = check.advice { line += " → " + advice }
                print(line)
            }
            print("doctor: \(report.passed) passed, \(report.warnings) warning(s), \(report.failed) failed")
        }
        if report.failed > 0 { throw ExitCode(1) }
    }

    // MARK: - Checks

    static func directory(_ directory: String) -> [Check] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return [.pass("data directory", "\(directory) does not exist yet (the first capture start or replay creates it, mode 700)")]
        }
        guard isDirectory.boolValue else {
            return [.fail("data directory", "\(directory) is not a directory", "move it away, or set data_dir elsewhere")]
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            return [.fail("data directory", "\(directory) is not writable by this user", "run capture as its owner, or chown it")]
        }
        let exposed = PrivacyCheck(dataDirectory: directory).exposures
        guard exposed.isEmpty else {
            return [
                .fail(
                    "data directory",
                    "others can read " + exposed.map { "\($0.path) (mode \($0.mode))" }.joined(separator: ", "),
                    "run: " + exposed.map(\.chmod).joined(separator: "; "))
            ]
        }
        return [.pass("data directory", "\(directory), only its owner can read it")]
    }

    static func store(_ store: Store?, directory: String) -> [Check] {
        guard let store else {
            if FileManager.default.fileExists(atPath: directory + "/capture.sqlite") {
                return [.fail("store", "\(directory)/capture.sqlite cannot be opened", "see `capture status` for why; keep a copy before anything else")]
            }
            return [.pass("store", "none yet")]
        }
        var checks: [Check] = []
        do {
            let verdict = try store.quickCheck()
            checks.append(
                verdict == "ok"
                    ? .pass("store", "quick_check ok, \(Progress.bytes(try store.databaseSize()))")
                    : .fail("store", "quick_check: \(verdict.prefix(200))", "copy capture.sqlite away, then `sqlite3 capture.sqlite .recover` into a new store"))
        } catch {
            checks.append(.fail("store", "\(error)", "copy capture.sqlite away before anything else"))
        }
        // A measurement left open by a recorder that is gone.
        if let report = try? RecorderControl(directory: directory).status() {
            if report.state == .interrupted, let id = report.measurement {
                checks.append(
                    .fail("recorder", "measurement \(id) is open but its recorder is gone", "`capture stop` finishes it (or `capture resume` continues it)"))
            } else if let id = report.measurement {
                checks.append(.pass("recorder", "measurement \(id) is \(report.state.rawValue), recorder pid \(report.recorder.map { String($0.pid) } ?? "?")"))
            } else {
                checks.append(.pass("recorder", "no measurement open"))
            }
        }
        // Upload sessions nobody has touched for an hour.
        if let uploads = try? store.uploads() {
            let hourAgo = Sync.nowMs() - 3_600_000
            let stale = uploads.values.filter { $0.status == .uploading && $0.updatedAt < hourAgo }.map(\.measurement).sorted()
            let failed = uploads.values.filter { $0.status == .failed }.map(\.measurement).sorted()
            if !stale.isEmpty {
                checks.append(
                    .warn(
                        "upload sessions", "measurement(s) \(stale.map(String.init).joined(separator: ", ")) left mid-upload over an hour ago",
                        "`capture upload --resume` continues them where the collector stands"))
            } else if !failed.isEmpty {
                checks.append(
                    .warn(
                        "upload sessions", "measurement(s) \(failed.map(String.init).joined(separator: ", ")) failed to upload",
                        "`capture show ID` says why; `capture upload` tries again"))
            } else {
                checks.append(.pass("upload sessions", "none left behind"))
            }
        }
        return checks
    }

    static func disk(_ directory: String, store: Store?, retention: RetentionPolicy) -> Check {
        // The file system the store is (or will be) on: the nearest existing ancestor.
        var path = directory
        while !path.isEmpty, path != "/", !FileManager.default.fileExists(atPath: path) {
            path = (path as NSString).deletingLastPathComponent
        }
        if path.isEmpty { path = "/" }
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else {
            return .warn("disk", "cannot read the free space of \(path): \(String(cString: strerror(errno)))", "check the mount")
        }
        let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
        let size = (try? store?.databaseSize()) ?? 0
        guard let budget = retention.maxStoreSize?.bytes else {
            let detail = "\(Progress.bytes(free)) free, no store budget"
            return free < 1 << 30
                ? .warn("disk", detail, "set retention.max_store_size, so capture prunes and stops cleanly before the disk fills")
                : .pass("disk", detail + " (retention.max_store_size unset)")
        }
        let room = budget - size
        guard room <= free else {
            return .fail(
                "disk", "the store may grow by \(Progress.bytes(room)) to its budget of \(Progress.bytes(budget)), but only \(Progress.bytes(free)) are free",
                "lower retention.max_store_size or free space")
        }
        return .pass("disk", "\(Progress.bytes(free)) free; the store holds \(Progress.bytes(size)) of its \(Progress.bytes(budget)) budget")
    }

    func sources(_ device: DeviceConfiguration) -> [Check] {
        let options = SourceOptions(sysfsRoot: sysfsRoot)
        var specs = device.sources.value
        if specs.isEmpty {
            specs = SourceRegistry.standard.discover(options: options).map(\.spec)
            guard !specs.isEmpty else {
                return [
                    .fail(
                        "sources", "none configured (capture.sources) and none found",
                        "connect a sensor, or set capture.sources (`capture sensors` lists what is found)")
                ]
            }
        }
        var checks: [Check] = []
        var clock = GNSSClock()
        for spec in specs {
            let name = "source \(spec)"
            let source: any SampleSource
            do {
                source = try SourceRegistry.standard.makeSource(spec, options: options)
            } catch {
                checks.append(.fail(name, "\(error)", "check the spec and the device (`capture sensors`)"))
                continue
            }
            let watched = SourceWatch.watch(source, seconds: seconds)
            clock = watched.clock.fixes > clock.fixes ? watched.clock : clock
            checks.append(Self.verdict(name, source: source, watched, seconds: seconds))
        }
        // GNSS: a fix, and the host clock against it (a live receiver's fixes only).
        if let median = clock.median {
            let offset = Double(median) / 1000
            let detail = "fixes from the receiver; the host clock is \(String(format: "%+.3f", -offset)) s off GNSS time (spread \(clock.spread.map { String($0) } ?? "?") ms)"
            checks.append(
                abs(median) > GNSSClock.threshold
                    ? .warn("gnss clock", detail, "let NTP (or chrony with the receiver's PPS) set the host clock; meanwhile capture stores such rides on GNSS time")
                    : .pass("gnss clock", detail))
        }
        return checks
    }

    static func verdict(_ name: String, source: any SampleSource, _ watched: SourceWatch.Result, seconds: Double) -> Check {
        if let error = watched.error {
            return .fail(name, "opened, then failed: \(error)", "check the device and its permissions (`capture sensors`)")
        }
        guard seconds > 0 else { return .pass(name, "opens") }
        let counts = watched.summary(seconds: watched.seconds)
        if watched.total == 0 {
            return .fail(name, "delivered nothing in \(String(format: "%.1f", watched.seconds)) s", "is the device delivering? (`capture sensors`, `gpsmon` for a receiver)")
        }
        if let iio = source as? IIOSource, let rate = iio.chosenRate {
            // Every motion sensor at its rate, within 10 %.
            let slow = watched.motion.filter { Double($0.value) / watched.seconds < rate * 0.9 }
            if !slow.isEmpty {
                return .warn(
                    name, "\(counts), fewer than the \(IIOSource.format(rate)) Hz it was set to",
                    "the device may not keep that rate: pick one of its available rates (`capture sensors`)")
            }
            return .pass(name, "\(counts), set to \(IIOSource.format(rate)) Hz")
        }
        if source.clock == .gnss, watched.fixes == 0 {
            return .warn(name, "\(counts), but no fix", "the receiver sees too few satellites: give it a view of the sky")
        }
        return .pass(name, counts)
    }

    static func collector(_ device: DeviceConfiguration) -> [Check] {
        guard let url = device.collectorURL?.value else {
            return [.pass("collector", "none configured (collector.url): nothing is delivered")]
        }
        if let problem = try? blocking({ await Delivery.probe(url) }) {
            return [.fail("collector", "\(url) does not answer: \(problem)", "check the URL and the network; capture keeps every ride until it answers")]
        }
        let settings: UploadSettings
        do {
            settings = try device.uploadSettings()
        } catch {
            return [
                .pass("collector", "\(url) answers"),
                .fail("token", CLIError.from(error).message, "set collector.token_file to a file of mode 600 holding the token, or auth.issuer"),
            ]
        }
        let authenticator = settings.authenticator
        let token: BearerToken
        do {
            token = try blocking { try await authenticator.bearerToken() }
        } catch {
            return [.pass("collector", "\(url) answers"), .fail("token", "no token: \(error)", authenticator.advice)]
        }
        let verdict = (try? blocking { await Delivery.tokenProbe(url, token: token) }) ?? .unreachable("no answer")
        switch verdict {
        case .accepted:
            return [.pass("collector", "\(url) answers"), .pass("token", "accepted (\(authenticator.origin))")]
        case .refused:
            return [
                .pass("collector", "\(url) answers"),
                .fail("token", "refused by the collector (401)", authenticator.advice),
            ]
        case .unreachable(let why):
            return [.fail("collector", "\(url) stopped answering: \(why)", "check the network")]
        }
    }
}

/// Runs a source on its own thread for a while and counts what it delivers.
enum SourceWatch {
    struct Result: Sendable {
        var motion: [MotionSensor: Int] = [:]
        var fixes = 0
        var pressure = 0
        var error: String?
        var seconds = 0.0
        var clock = GNSSClock()

        var total: Int { motion.values.reduce(0, +) + fixes + pressure }

        /// `acc 100.0/s, fix 1.0/s`.
        func summary(seconds: Double) -> String {
            var parts = MotionSensor.allCases.compactMap { sensor in
                motion[sensor].map { "\(sensor.shortName) \(String(format: "%.1f", Double($0) / seconds))/s" }
            }
            if fixes > 0 { parts.append("fix \(String(format: "%.1f", Double(fixes) / seconds))/s") }
            if pressure > 0 { parts.append("prs \(String(format: "%.1f", Double(pressure) / seconds))/s") }
            return parts.joined(separator: ", ")
        }
    }

    static func watch(_ source: any SampleSource, seconds: Double) -> Result {
        let state = Mutex(Result())
        let stop = StopSignal()
        let done = DispatchSemaphore(value: 0)
        let measuresClock = source.clock == .gnss
        let started = Date()
        let sink = ClosureSink(stop: stop) { samples in
            state.withLock { result in
                for sample in samples {
                    switch sample {
                    case .motion(let sensor, _): result.motion[sensor, default: 0] += 1
                    case .fix(let fix):
                        result.fixes += 1
                        if measuresClock { _ = result.clock.observe(gnss: fix.timestamp, host: WallClock.now()) }
                    case .pressure: result.pressure += 1
                    }
                }
            }
        }
        let thread = Thread {
            do {
                try source.run(into: sink)
            } catch {
                state.withLock { $0.error = "\(error)" }
            }
            done.signal()
        }
        thread.start()
        let ended = done.wait(timeout: .now() + seconds) == .success
        stop.stop()
        if !ended { _ = done.wait(timeout: .now() + 5) }
        var result = state.withLock { $0 }
        result.seconds = max(Date().timeIntervalSince(started), 0.001)
        return result
    }
}
