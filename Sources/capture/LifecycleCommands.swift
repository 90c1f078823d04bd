public import ArgumentParser
import CaptureWiring
import CaptureCore
import CaptureRecorder
import CaptureSensors
import Foundation
import Logging

/// The options of pause, modality, resume and stop; ``perform(_:verb:)`` sends one to the
/// recorder (or applies it to an interrupted measurement) and prints what it did:
/// `measurement 3 paused (paused, track 1)`, or the report as JSON.
struct ControlOptions: ParsableArguments {
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @discardableResult
    func perform(_ command: (RecorderControl) throws -> LifecycleReport, verb: (LifecycleReport) -> String) throws
        -> LifecycleReport
    {
        let report = try command(RecorderControl(directory: data.controlPath))
        if let warning = report.givenUpWarning { Log.logger.warning("\(warning)") }
        try output.print(report, report.line(verb(report)))
        return report
    }
}

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start a new measurement in a background recorder.",
        discussion: """
            Returns once capturing has begun and prints the measurement id. The recorder keeps \
            running after the shell closes; `capture status` shows it, `capture stop` ends it. \
            With --foreground it runs in this terminal instead and Ctrl-C stops the measurement.

            Without --source, capture uses every IIO motion or pressure sensor it finds under \
            --sysfs-root, and gpsd (or a GNSS tty) if one answers; with -v it says on stderr what it chose. \
            --record-trace also writes what the sources deliver as a native trace that `capture \
            replay` takes.

            A trace source (trace:FILE) is a simulated device, played at its own pace from now; its \
            marks drive the measurement: the start mark's modality (unless --modality is given), \
            pauses, resumes and modality changes at their times, and its stop mark (or last record) \
            ends it as `capture stop` would; --loop starts it again on a new track instead, and after \
            a crash `capture resume` continues where the committed data ends. With ride.detect: auto \
            it plays as a receiver: its motion begins and ends rides, its marks are left out.

            Without --source, --modality or --flush-interval, capture.sources, capture.modality \
            and capture.flush_interval from the configuration (`capture config`) apply.

            --continue-interrupted: an interrupted measurement (its recorder died in a crash or a \
            power cut) whose last data is younger than ride.resume_within is continued as `capture \
            resume` does, an older one finished there; then a new one starts (not exit 3). With \
            ride.detect: auto the recorder waits armed and motion begins each ride (docs/rides.md); \
            --foreground with both is what dist/systemd/capture-record.service runs.

            Example: capture start --modality BICYCLE --source trace:fixtures/bicycle.trace
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "The initial modality (any case); default: a trace's start mark, else UNKNOWN.")
    var modality: Modality?

    @Option(name: .customLong("source"), help: ArgumentHelp(Start.sourceHelp, valueName: "spec"))
    var sources: [String] = []

    @Option(help: "Seconds between commits; a crash loses at most this much (0.05 to 3600; default: capture.flush_interval, else 1).")
    var flushInterval: FlushInterval?

    @Flag(help: "Run the recorder in this terminal; Ctrl-C stops the measurement.")
    var foreground = false

    @Flag(help: "Continue an interrupted measurement (as `capture resume` does) instead of refusing.")
    var continueInterrupted = false

    @Option(help: "Where sys/bus/iio/devices and dev are looked up (a fake tree in tests).")
    var sysfsRoot = "/"

    @Option(help: "IIO sampling rate in Hz; a buffered device is set to the nearest available rate, a polled one is read at this rate and set to the lowest available rate at or above it; both are reported.")
    var rate: SamplingRate?

    @Option(help: ArgumentHelp("Also write what the sources deliver to this native trace file.", valueName: "file"))
    var recordTrace: String?

    @Flag(help: "Play trace sources again from the top, on a new track, instead of stopping at their end.")
    var loop = false

    @Option(
        help: ArgumentHelp(
            "When to put host-clock times on GNSS time: auto, always or never.",
            discussion: """
                A live receiver's fixes tell how far the host clock is off. When at least 5 agree \
                on more than 3 s, events, motion and pressure are moved onto GNSS time (what is \
                stored so far in one transaction, the rest as it comes), so that tracks and fixes \
                line up. auto (default) does so only while the kernel says the host clock is not \
                synchronised (no NTP yet, as on a board without a real-time clock).
                """, valueName: "policy"))
    var gnssTime: GNSSTimePolicy = .auto

    @OptionGroup var limit: StoreLimitOptions

    /// The `--source` help, made from the registered source kinds.
    static let sourceHelp = """
        A source: \(SourceRegistry.standard.syntaxes.joined(separator: ", ")). Repeatable. Without \
        --source, every IIO sensor under --sysfs-root and gpsd (or a GNSS tty) that answers are used.
        """

    func run() throws {
        // The configuration first: a bad file starts nothing (exit 78).
        let device = try data.device()
        let options = SourceOptions(sysfsRoot: sysfsRoot, rate: rate?.hertz, loop: loop)
        let configuration = try device.recorder(
            modality: modality, flushInterval: flushInterval?.milliseconds, sourceOptions: options,
            recordTrace: recordTrace.map(SourcePath.absolute), maximumSize: limit.maximumSize, gnssTime: gnssTime)
        let report = try RecorderControl(directory: data.path).start(
            configuration, sources: { try device.sources(sources, options: options) }, continueInterrupted: continueInterrupted,
            foreground: foreground, rideEnded: { _ in configuration.deliverInBackground() }
        ) { event in
            switch event {
            case .continuing(let id): Log.logger.info("continuing the interrupted measurement \(id)")
            case .armed(let report), .capturing(let report):
                try? output.printLine(report, [report.startLine])
                if report.ride == nil { Log.logger.info("capturing measurement \(report.measurement); Ctrl-C stops it") }
            }
        }
        if let report { try output.print(report, report.startLine) }
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the measurement; nothing is recorded until `capture resume`.")
    @OptionGroup var control: ControlOptions

    func run() throws {
        try control.perform({ try $0.pause() }, verb: { _ in "paused" })
    }
}

struct ModalityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modality",
        abstract: "Record a change of modality, e.g. `capture modality WALKING`.",
        discussion: """
            The modality already in force is ignored: nothing is recorded, and capture says \
            "measurement 1 is already WALKING" (exit 0; --json has "outcome": "unchanged"). \
            Modalities: \(Modality.spellings) (any case).
            """)
    @OptionGroup var control: ControlOptions
    @Argument(help: "The new modality.") var modality: Modality

    func run() throws {
        try control.perform(
            { try $0.changeModality(to: modality) },
            verb: { "\($0.outcome == .unchanged ? "is already" : "is now") \(modality.rawValue)" })
    }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused or interrupted measurement on a new track.",
        discussion: """
            If the recorder was killed (crash, power loss), resume starts a new recorder with the \
            same sources; the measurement is paused where its committed data ends and resumed now. \
            A trace source continues after the committed data (nothing is stored twice); if the \
            trace had paused the measurement, it stays paused until the trace resumes it.
            """)
    @OptionGroup var control: ControlOptions
    @OptionGroup var limit: StoreLimitOptions

    func run() throws {
        try control.perform({ try $0.resume { try control.data.device().recorder(resuming: limit.maximumSize) } }, verb: { _ in "resumed" })
    }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop the measurement for good.",
        discussion: """
            Returns once everything captured is committed and the recorder has exited. An \
            interrupted measurement (its recorder was killed) is finished where its committed \
            data ends.
            """)
    @OptionGroup var control: ControlOptions

    func run() throws {
        let report = try control.perform({ try $0.stop() }, verb: { _ in "stopped" })
        // A running recorder starts the automatic delivery as it exits; an interrupted
        // measurement (no recorder) is delivered from here. A configuration broken since the
        // start is only warned about (controlPath): no automatic delivery then.
        if report.pid == nil { try? control.data.device().deliverInBackground() }
    }
}

/// The recorder process: `capture _record`, started by `capture start` and `capture resume`
/// (``RecorderLauncher``, which writes these options).
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_record", abstract: "Run the recorder (started by `capture start`).", shouldDisplay: false)

    @OptionGroup var data: DataDirectoryOptions
    @Option(name: .customLong("configuration")) var recorder: RecorderConfiguration
    @Flag var recover = false
    @Option var readyFd: Int32?

    func run() throws {
        try recorder.runProcess(recover: recover, readiness: readyFd.map(ReadinessPipe.init(descriptor:)))
    }
}

extension RecorderConfiguration: ExpressibleByArgument {
    /// The JSON that ``RecorderLauncher/arguments(_:recover:)`` writes.
    init?(argument: String) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(argument.utf8)) else { return nil }
        self = decoded
    }
}

/// `--max-store-size`: a ceiling for the database, for devices whose storage must not fill up
/// (an SD card shared with the system). Reaching it stops the recorder as a full disk does.
struct StoreLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("max-store-size"),
        help: ArgumentHelp(
            "Stop capturing (exit 73, as on a full disk) before the database grows beyond this size.",
            discussion: "Bytes, or with a suffix K, M or G (powers of 1024): 512M. Committed data is kept.",
            valueName: "size"))
    var maximumSize: ByteSize?
}
