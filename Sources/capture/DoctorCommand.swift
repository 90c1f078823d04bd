import ArgumentParser
import CaptureWiring
import CaptureDoctor

/// `capture doctor`: is this device ready to record and deliver, and if not, what to do.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this device's setup, one line per check, and say what to do about each problem.",
        discussion: """
            Checks, in order: the configuration (file, environment, flags); the data directory \
            (exists, only its owner can read it); the recorder's runtime directory; the store \
            (SQLite's quick_check); a measurement left open by a recorder that is gone; upload \
            sessions left behind; free disk against the store budget (retention.max_store_size); each source of \
            capture.sources (or, with none configured, each one `capture start` would find), \
            watched for --seconds: it opens and delivers, at the rate it was set to where it was \
            set one (a u-blox module still at its factory 1 Hz is named); a GNSS fix and how far \
            the host clock is from GNSS time; the collector (answers at all, and takes the token, \
            with a status query for a session that does not exist: nothing is uploaded); the \
            LEDs of indicator.leds and the button of button.device, when configured. A check \
            that cannot apply (no collector configured) says so and passes.

            Each line: pass, warn or FAIL, the check, what was found and, for a problem, what to \
            do. A summary line ends the report. --json prints {checks: [{check, status, detail, \
            advice}], passed, warnings, failed}.

            --storage measures the data directory's medium instead: 4 KiB writes, each followed by \
            fdatasync, for --seconds; p50, p99 and max; a warning when five syncs (one flush and a \
            staged commit) at p99 take over half of capture.flush_interval. JSON adds storage: \
            {rounds, p50Milliseconds, p99Milliseconds, maxMilliseconds}.

            --system checks the board itself instead: power (a Raspberry Pi's under-voltage and \
            throttling, now and since boot), swap on the SD card, journald writing to the card \
            uncapped, the data directory on the card without noatime and commit=, a clock not \
            synchronised on a board without an RTC, and the card's wear where the kernel reports it.

            EXIT CODES: 0 no check failed (warnings allowed); 1 at least one check failed; \
            64 bad arguments.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Option(help: ArgumentHelp("How long each source is watched (0: only open it).", valueName: "seconds"))
    var seconds: Double = 3

    @Option(help: "Where sys, dev, proc, etc and run are looked up.")
    var sysfsRoot = "/"

    @Flag(help: "Measure the data directory's medium (write + fdatasync latency) for --seconds instead.")
    var storage = false

    @Flag(help: "Check the board itself instead: power, swap, journal, the data directory's medium, clock, card wear.")
    var system = false

    func validate() throws {
        guard seconds >= 0, seconds <= 600 else { throw ValidationError("--seconds: 0 to 600") }
        guard !(storage && system) else { throw ValidationError("--storage and --system: one at a time") }
    }

    func run() async throws {
        let doctor = CaptureDoctor.Doctor(
            seconds: seconds, sysfsRoot: sysfsRoot, describe: { CLIError.from($0).message }, advise: { $0.advice })
        // The configuration first: the other checks go on with the defaults if it is broken.
        guard let (configuration, device) = doctor.configuration(data.configFlags) else { throw ExitCode(1) }
        let report = storage ? doctor.storage(device) : system ? doctor.system(device) : await doctor.run(device, configuration: configuration)
        try output.print(report, report.text)
        if report.failed > 0 { throw ExitCode(1) }
    }
}

extension DoctorRemedy {
    /// What to do, with the command that does it.
    var advice: String {
        switch self {
        case .fixConfiguration: "fix the value it names (docs/configuration.md; `capture config` shows the result)"
        case .inspectUnopenableStore: "see `capture status` for why; keep a copy before anything else"
        case .finishInterrupted: "`capture stop` finishes it (or `capture resume` continues it)"
        case .resumeUploads: "`capture upload --resume` continues them where the collector stands"
        case .retryFailedUploads: "`capture show ID` says why; `capture upload` tries again"
        case .connectSensor: "connect a sensor, or set capture.sources (`capture sensors` lists what is found)"
        case .checkSourceSpec: "check the spec and the device (`capture sensors`)"
        case .checkDevicePermissions: "check the device and its permissions (`capture sensors`)"
        case .checkDeviceDelivers: "is the device delivering? (`capture sensors`, `gpsmon` for a receiver)"
        case .pickAvailableRate: "the device may not keep that rate: pick one of its available rates (`capture sensors`)"
        case .setUpReceiver(let device): "`capture gnss setup \(device)` sets UBX NAV-PVT at 5 Hz (docs/live-sensors.md)"
        case .credentials(let remedy): remedy.advice
        case .allowOfflineAccess: "allow the client the offline_access scope at the issuer (docs/upload.md, Keycloak), then `capture login`"
        case .refreshLogin: "`capture sync` refreshes it once half its life has passed: is its timer running?"
        case .makeRoom: "`capture sync` delivers the rides waiting (is the collector reachable?), `capture prune` or `capture delete ID` removes some"
        case .steadyPower, .keepSwapOffCard, .capJournal, .mountForCard, .synchronizeClock, .replaceCard, .checkLEDs, .checkButton,
            .restrictPageToken, .choosePagePort:
            description
        }
    }
}
