package import CaptureConfig
import CaptureWiring
import CaptureCore
import CaptureRecorder
import CaptureSensors
import CaptureStorage
package import CaptureUpload
import Foundation
import Glibc

/// `capture doctor`: is this device ready to record and deliver, and if not, what to do. The
/// checks run in order (the configuration, the data directory, the store, a measurement left
/// open, upload sessions left behind, free disk against the store budget, each source, the GNSS
/// clock, the collector and its token); each gives a ``DoctorCheck``. Nothing is uploaded and
/// nothing in the data directory is changed.
///
/// ```swift
/// let report = await Doctor(seconds: 3).run(device, configuration: Doctor.configuration(device))
/// ```
package struct Doctor: Sendable {
    /// How long each source is watched (0: only open it).
    package var seconds: Double
    /// Where `sys/bus/iio/devices` and `dev` are looked up.
    package var sysfsRoot: String
    /// How an error reads to the person (the front end's wording, with its advice).
    package var describe: @Sendable (any Error) -> String
    /// How a remedy reads (the front end names its commands; ``DoctorRemedy/description`` by default).
    package var advise: @Sendable (DoctorRemedy) -> String
    /// How long the collector is given to answer each question, seconds.
    package var collectorTimeout: Int64 = 5
    /// How long `capture serve` is given to answer on its port, seconds.
    package var pageTimeout = 2

    /// A doctor that watches each source for `seconds`.
    package init(
        seconds: Double = 3, sysfsRoot: String = "/", describe: @escaping @Sendable (any Error) -> String = { "\($0)" },
        advise: @escaping @Sendable (DoctorRemedy) -> String = { $0.description }
    ) {
        self.seconds = seconds
        self.sysfsRoot = sysfsRoot
        self.describe = describe
        self.advise = advise
    }

    /// Every check on `device`, after `configuration` (the outcome of loading it:
    /// ``configuration(_:)`` or ``configuration(failed:)``; the other checks then go on with
    /// the defaults).
    package func run(_ device: DeviceConfiguration, configuration: DoctorCheck) async -> DoctorReport {
        var checks = [configuration]
        let directory = device.dataDirectory.value
        checks += Self.directory(directory)
        checks.append(Self.runtime(directory))
        let store = FileManager.default.fileExists(atPath: directory + "/capture.sqlite") ? try? Store(directory: directory) : nil
        checks += self.store(store, directory: directory)
        checks.append(Self.disk(directory, store: store, retention: (try? device.retention()) ?? .standard))
        checks += sources(device)
        checks += indicator(device)
        checks += button(device)
        checks += page(device)
        checks += await collector(device)
        checks += login(device, now: Int64(Date().timeIntervalSince1970 * 1000))
        return DoctorReport(checks: checks)
    }

    /// The configuration check of a configuration that loaded.
    package static func configuration(_ device: DeviceConfiguration) -> DoctorCheck {
        .pass("configuration", device.file.map { "\($0.path) read" } ?? "no configuration file (looked for \(device.filePlace)); defaults")
    }

    /// The configuration check, and the configuration the other checks go on with: the one
    /// `flags` give (``DeviceConfiguration/forProcess(_:file:)``) or, when it is broken, the
    /// defaults with the flags but no file; nil when even those fail.
    package func configuration(_ flags: [ConfigKey: DeviceConfiguration.Flag]) -> (DoctorCheck, DeviceConfiguration)? {
        do {
            let device = try DeviceConfiguration.forProcess(flags)
            return (Self.configuration(device), device)
        } catch {
            guard let fallback = try? DeviceConfiguration.forProcess(flags, file: "/dev/null") else { return nil }
            return (configuration(failed: error), fallback)
        }
    }

    /// The configuration check of one that did not.
    package func configuration(failed error: any Error) -> DoctorCheck {
        .fail("configuration", "\(error)", advise(.fixConfiguration))
    }

    // MARK: - Checks

    static func directory(_ directory: String) -> [DoctorCheck] {
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
        do {
            try DataDirectory.check(directory)
        } catch {
            return [.fail("data directory", error.description, "set data_dir to a new or empty directory")]
        }
        let exposed = PrivacyCheck(dataDirectory: directory).exposures
        guard exposed.isEmpty else {
            return [.fail("data directory", "others can read " + PrivacyCheck.paths(exposed), PrivacyCheck.remedy(exposed))]
        }
        return [.pass("data directory", "\(directory), only its owner can read it")]
    }

    /// Where the recorder's socket, pid file and lock are (``RuntimeDirectory``): usable, or
    /// why not; and what an older capture left of them in the data directory, which nothing reads.
    static func runtime(_ directory: String) -> DoctorCheck {
        let runtime = RuntimeDirectory(dataDirectory: directory)
        if let problem = runtime.problem() {
            return .fail("runtime dir", problem.description, "make it this user's alone (chown, chmod 700), or remove it")
        }
        let left = RuntimeDirectory.formerNames.filter { name in
            var info = stat()
            return lstat(directory + "/" + name, &info) == 0
        }
        guard left.isEmpty else {
            return .warn(
                "runtime dir",
                "\(left.joined(separator: ", ")) in \(directory) left by an older capture; nothing reads them (the recorder's are in \(runtime.path))",
                "once no older capture runs, remove them: rm " + left.map { directory + "/" + $0 }.joined(separator: " "))
        }
        return .pass("runtime dir", "\(runtime.path) (\(runtime.origin.description))")
    }

    func store(_ store: Store?, directory: String) -> [DoctorCheck] {
        guard let store else {
            if FileManager.default.fileExists(atPath: directory + "/capture.sqlite") {
                return [.fail("store", "\(directory)/capture.sqlite cannot be opened", advise(.inspectUnopenableStore))]
            }
            return [.pass("store", "none yet")]
        }
        var checks: [DoctorCheck] = []
        do {
            let verdict = try store.quickCheck()
            checks.append(
                verdict == "ok"
                    ? .pass("store", "quick_check ok, \(ByteCount.text(try store.databaseSize()))")
                    : .fail("store", "quick_check: \(verdict.prefix(200))", "copy capture.sqlite away, then `sqlite3 capture.sqlite .recover` into a new store"))
        } catch {
            checks.append(.fail("store", "\(error)", "copy capture.sqlite away before anything else"))
        }
        // A measurement left open by a recorder that is gone.
        if let report = try? RecorderControl(directory: directory).status() {
            if let ride = report.ride, ride.state == .waitingForRoom {
                checks.append(
                    .warn(
                        "recorder",
                        "waiting for room since \(TextFormat.time(ride.since)), recorder pid \(report.recorder.map { String($0.pid) } ?? "?"): "
                            + "the store is full of rides the collector has not taken; nothing is recorded",
                        advise(.makeRoom)))
            } else if report.state == .interrupted, let id = report.measurement {
                checks.append(
                    .fail("recorder", "measurement \(id) is open but its recorder is gone", advise(.finishInterrupted)))
            } else if let id = report.measurement {
                checks.append(.pass("recorder", "measurement \(id) is \(report.state.rawValue), recorder pid \(report.recorder.map { String($0.pid) } ?? "?")"))
            } else {
                checks.append(.pass("recorder", "no measurement open"))
            }
        }
        // Upload sessions nobody has touched for an hour.
        if let uploads = try? store.uploads() {
            let hourAgo = WallClock.now() - 3_600_000
            let stale = uploads.values.filter { $0.status == .uploading && $0.updatedAt < hourAgo }.map(\.measurement).sorted()
            let failed = uploads.values.filter { $0.status == .failed }.map(\.measurement).sorted()
            if !stale.isEmpty {
                checks.append(
                    .warn(
                        "upload sessions", "measurement(s) \(stale.map(String.init).joined(separator: ", ")) left mid-upload over an hour ago",
                        advise(.resumeUploads)))
            } else if !failed.isEmpty {
                checks.append(
                    .warn(
                        "upload sessions", "measurement(s) \(failed.map(String.init).joined(separator: ", ")) failed to upload",
                        advise(.retryFailedUploads)))
            } else {
                checks.append(.pass("upload sessions", "none left behind"))
            }
        }
        return checks
    }

    static func disk(_ directory: String, store: Store?, retention: RetentionPolicy) -> DoctorCheck {
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
            let detail = "\(ByteCount.text(free)) free, no store budget"
            return free < 1 << 30
                ? .warn("disk", detail, "set retention.max_store_size, so capture prunes and stops cleanly before the disk fills")
                : .pass("disk", detail + " (retention.max_store_size unset)")
        }
        let room = budget - size
        guard room <= free else {
            return .fail(
                "disk",
                "the store may grow by \(ByteCount.text(room)) to its budget of \(ByteCount.text(budget)), but only \(ByteCount.text(free)) are free",
                "lower retention.max_store_size or free space")
        }
        return .pass("disk", "\(ByteCount.text(free)) free; the store holds \(ByteCount.text(size)) of its \(ByteCount.text(budget)) budget")
    }

    func sources(_ device: DeviceConfiguration) -> [DoctorCheck] {
        let options = SourceOptions(sysfsRoot: sysfsRoot)
        var specs = device.sources.value
        if specs.isEmpty {
            specs = SourceRegistry.standard.discover(options: options).map(\.spec)
            guard !specs.isEmpty else {
                return [
                    .fail(
                        "sources", "none configured (capture.sources) and none found",
                        advise(.connectSensor))
                ]
            }
        }
        var checks: [DoctorCheck] = []
        var clock = GNSSClock()
        for spec in specs {
            let name = "source \(spec)"
            let source: any SampleSource
            do {
                source = try SourceRegistry.standard.makeSource(spec, options: options)
            } catch {
                checks.append(.fail(name, "\(error)", advise(.checkSourceSpec)))
                continue
            }
            let watched = SourceWatch.watch(source, seconds: seconds)
            clock = watched.clock.fixes > clock.fixes ? watched.clock : clock
            checks.append(verdict(name, source: source, watched))
        }
        // GNSS: a fix, and the host clock against it (a live receiver's fixes only).
        if let median = clock.median {
            let offset = Double(median) / 1000
            let detail =
                "fixes from the receiver; the host clock is \(String(format: "%+.3f", -offset)) s off GNSS time (spread \(clock.spread.map { String($0) } ?? "?") ms)"
            checks.append(
                abs(median) > GNSSClock.threshold
                    ? .warn("gnss clock", detail, "let NTP (or chrony with the receiver's PPS) set the host clock; meanwhile capture stores such rides on GNSS time")
                    : .pass("gnss clock", detail))
        }
        return checks
    }

    func verdict(_ name: String, source: any SampleSource, _ watched: SourceWatch.Result) -> DoctorCheck {
        if let error = watched.error {
            return .fail(name, "opened, then failed: \(error)", advise(.checkDevicePermissions))
        }
        guard seconds > 0 else { return .pass(name, "opens") }
        let counts = watched.summary(seconds: watched.seconds)
        if watched.total == 0 {
            return .fail(
                name, "delivered nothing in \(String(format: "%.1f", watched.seconds)) s", advise(.checkDeviceDelivers))
        }
        if let iio = source as? IIOSource, let rate = iio.expectedRate {
            // Every motion sensor at its rate, within 10 %.
            let slow = watched.motion.filter { Double($0.value) / watched.seconds < rate * 0.9 }
            if !slow.isEmpty {
                return .warn(
                    name, "\(counts), fewer than the \(IIOSource.format(rate)) Hz it was set to",
                    advise(.pickAvailableRate))
            }
            return .pass(name, "\(counts), set to \(IIOSource.format(rate)) Hz")
        }
        if source.clock == .gnss, watched.fixes == 0 {
            return .warn(name, "\(counts), but no fix", "the receiver sees too few satellites: give it a view of the sky")
        }
        if let receiver = source as? NMEASource, let module = Self.factoryRate(receiver, watched) {
            return .warn(
                name, "\(counts): \(module.description) at about 1 fix/s, its factory setting (NMEA at 1 Hz)",
                advise(.setUpReceiver(receiver.path)))
        }
        return .pass(name, counts)
    }

    /// The u-blox module behind a live receiver that gave fixes at no more than 1.5 per second,
    /// the rate of a module's factory setting (NMEA at 1 Hz; capture wants UBX NAV-PVT at 5 Hz),
    /// asked with a MON-VER poll after the watch; `nil` for any other receiver.
    static func factoryRate(_ receiver: NMEASource, _ watched: SourceWatch.Result) -> UBloxModule? {
        guard receiver.clock == .gnss, watched.fixes > 0, Double(watched.fixes) / watched.seconds <= 1.5 else { return nil }
        return UBloxSetup.identify(device: receiver.path, timeout: 1_000)
    }

    func collector(_ device: DeviceConfiguration) async -> [DoctorCheck] {
        guard let url = device.collectorURL?.value else {
            return [.pass("collector", "none configured (collector.url): nothing is delivered")]
        }
        // The token is read before the collector is asked: a box set up offline is told about a
        // missing or exposed token file too, not only once it reaches its collector.
        var settings: UploadSettings?
        var unreadable: DoctorCheck?
        do {
            settings = try device.uploadSettings(options: [])
        } catch {
            unreadable = .fail("token", describe(error), "set collector.token_file to a file of mode 600 holding the token, or auth.issuer")
        }
        if let problem = await Delivery.probe(url, timeout: collectorTimeout) {
            let down = DoctorCheck.fail(
                "collector", "\(url) does not answer: \(problem)", "check the URL and the network; capture keeps every ride until it answers")
            if let unreadable { return [down, unreadable] }
            guard case .tokenFile(let path, _)? = settings?.credentials else { return [down] }
            return [down, .pass("token", "read from \(path); not tried, the collector does not answer")]
        }
        guard let settings else { return [.pass("collector", "\(url) answers")] + [unreadable].compactMap { $0 } }
        let authenticator = settings.authenticator
        let token: BearerToken
        do {
            token = try await authenticator.bearerToken()
        } catch {
            return [.pass("collector", "\(url) answers"), .fail("token", "no token: \(error)", advise(.credentials(authenticator.remedy)))]
        }
        switch await Delivery.tokenProbe(url, token: token, timeout: collectorTimeout) {
        case .accepted:
            return [.pass("collector", "\(url) answers"), .pass("token", "accepted (\(authenticator.origin))")]
        case .refused:
            return [.pass("collector", "\(url) answers"), .fail("token", "refused by the collector (401)", advise(.credentials(authenticator.remedy)))]
        case .unreachable(let why):
            return [.fail("collector", "\(url) stopped answering: \(why)", "check the network")]
        }
    }
}
