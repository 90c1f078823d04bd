import ArgumentParser
import CaptureCore
import CaptureRecorder
import CaptureSensors
import CaptureStorage
import Foundation
import Glibc

/// What lifecycle commands print with `--json`.
struct LifecycleReport: Codable {
    var measurement: Int64
    var state: String
    var track: Int
    var modality: String?
    var pid: Int32?
}

extension LifecycleReport {
    /// The report for a measurement as stored (when no recorder answers for it).
    init(store: Store, id: Int64, pid: Int32? = nil) throws {
        let record = try store.measurement(id)
        self.init(
            measurement: id, state: record.status, track: record.trackCount,
            modality: try store.currentModality(of: id)?.rawValue, pid: pid)
    }
}

func printLifecycle(_ report: LifecycleReport, json: Bool, verb: String) throws {
    if json {
        try printJSON(report)
    } else {
        print("measurement \(report.measurement) \(verb) (\(report.state), track \(report.track))")
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
            --sysfs-root, and gpsd (or a GNSS tty) if one answers, and says on stderr what it chose. \
            --record-trace also writes what the sources deliver as a native trace that `capture \
            replay` takes.

            Example: capture start --modality BICYCLE --source trace:fixtures/bicycle.trace
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "The initial modality: \(Modality.spellings) (any case).")
    var modality: String = "UNKNOWN"

    @Option(name: .customLong("source"), help: ArgumentHelp(SourceSpec.help, valueName: "spec"))
    var sources: [String] = []

    @Option(help: "Seconds between commits; a crash loses at most this much (0.05 to 3600).")
    var flushInterval: Double = 1

    @Flag(help: "Run the recorder in this terminal; Ctrl-C stops the measurement.")
    var foreground = false

    @Option(help: "Where sys/bus/iio/devices and dev are looked up (a fake tree in tests).")
    var sysfsRoot = "/"

    @Option(help: "IIO sampling rate in Hz; the nearest available rate is used and reported.")
    var rate: Double?

    @Option(help: ArgumentHelp("Also write what the sources deliver to this native trace file.", valueName: "file"))
    var recordTrace: String?

    @OptionGroup var limit: StoreLimitOptions

    func validate() throws {
        if let rate, !(rate > 0 && rate <= 100_000) { throw ValidationError("--rate must be a number of Hz above 0 and at most 100000") }
        guard (0.05...3600).contains(flushInterval) else {
            throw ValidationError("--flush-interval must be between 0.05 and 3600 seconds")
        }
    }

    func run() throws {
        try execute {
            let chosen = try parseModality(modality)
            let directory = data.path
            let options = SourceSpec.Options(sysfsRoot: SourceSpec.absolute(sysfsRoot), rate: rate)
            var sources = self.sources
            if sources.isEmpty {
                let found = SourceSpec.discover(options: options)
                guard !found.isEmpty else {
                    throw CLIError(
                        .notFound,
                        "no sensors found (no IIO device under \(options.sysfsRoot), no gpsd at \(GPSDSource.defaultAddress)); use --source")
                }
                for source in found { FileHandle.standardError.write(Data("using \(source.spec): \(source.summary)\n".utf8)) }
                sources = found.map(\.spec)
            } else {
                for source in try sources.map({ try SourceSpec.make($0, options: options) }) {
                    if let iio = source as? IIOSource, iio.requestedRate != nil {
                        FileHandle.standardError.write(Data("using \(iio.name): \(iio.summary)\n".utf8))
                    }
                }
            }
            // Absolute paths: the recorder may run from another directory.
            let specs = sources.map(SourceSpec.normalized)
            try refuseIfOpen(directory: directory)
            if foreground {
                try RecorderMain.run(
                    directory: directory, modality: chosen, specs: specs, options: options,
                    recordTrace: recordTrace.map(SourceSpec.absolute), flushInterval: flushInterval,
                    maximumSize: try limit.bytes(), recover: false, readyDescriptor: nil,
                    announce: { id in
                        if output.json {
                            try? printJSON(
                                LifecycleReport(
                                    measurement: id, state: "capturing", track: 1, modality: chosen.rawValue,
                                    pid: getpid()))
                        } else {
                            print(id)
                        }
                        FileHandle.standardError.write(Data("capturing measurement \(id); Ctrl-C stops it\n".utf8))
                    })
                return
            }
            var arguments =
                [
                    "_record", "--data-dir", directory, "--modality", chosen.rawValue, "--flush-interval",
                    "\(flushInterval)", "--sysfs-root", options.sysfsRoot,
                ] + specs.flatMap { ["--source", $0] }
            if let rate { arguments += ["--rate", "\(rate)"] }
            if let recordTrace { arguments += ["--record-trace", SourceSpec.absolute(recordTrace)] }
            arguments += limit.arguments
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let started = try Daemon.spawn(arguments: arguments, directory: directory)
            if output.json {
                try printJSON(
                    LifecycleReport(
                        measurement: started.measurement, state: "capturing", track: 1, modality: chosen.rawValue,
                        pid: started.pid))
            } else {
                print(started.measurement)
            }
        }
    }

    private func refuseIfOpen(directory: String) throws {
        guard let store = try data.existingStore(), let open = try store.openMeasurement() else { return }
        if RecorderLock.isHeld(directory: directory) {
            throw CLIError(.alreadyOpen, "measurement \(open.id) is already \(open.status); stop it with `capture stop` first")
        }
        throw CLIError(
            .alreadyOpen,
            "measurement \(open.id) was interrupted; `capture resume` continues it, `capture stop` finishes it")
    }
}

/// Sends a lifecycle command to the running recorder, or explains why there is none.
func sendLifecycle(_ request: ControlRequest, data: DataDirectoryOptions) throws -> LifecycleReport {
    let directory = data.path
    if RecorderLock.isHeld(directory: directory) {
        let reply: ControlReply
        do {
            reply = try RecorderClient.send(request, directory: directory)
        } catch {
            throw CLIError(.unavailable, "the recorder did not answer: \(error)")
        }
        guard reply.ok, let status = reply.status else {
            throw reply.failure ?? ControlFailure(kind: "storage", message: "the recorder gave no answer")
        }
        return LifecycleReport(
            measurement: status.measurement, state: status.state, track: status.track, modality: status.modality,
            pid: status.pid)
    }
    if let store = try data.existingStore(), let open = try store.openMeasurement() {
        throw CLIError(
            .notCapturing,
            "measurement \(open.id) was interrupted (its recorder is not running); `capture resume` continues it on a new track, `capture stop` finishes it")
    }
    throw LifecycleError.notOpen(state: .idle)
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the measurement; nothing is recorded until `capture resume`.")
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try execute {
            try printLifecycle(sendLifecycle(ControlRequest(command: "pause"), data: data), json: output.json, verb: "paused")
        }
    }
}

struct ModalityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modality",
        abstract: "Record a change of modality, e.g. `capture modality WALKING`.",
        discussion: "The modality already in force is ignored. Modalities: \(Modality.spellings) (any case).")
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The new modality.") var modality: String

    func run() throws {
        try execute {
            let chosen = try parseModality(modality)
            let report = try sendLifecycle(ControlRequest(command: "modality", modality: chosen.rawValue), data: data)
            try printLifecycle(report, json: output.json, verb: "is now \(chosen.rawValue)")
        }
    }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused or interrupted measurement on a new track.",
        discussion: """
            If the recorder was killed (crash, power loss), resume starts a new recorder with the \
            same sources; the measurement is paused where its committed data ends and resumed now.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var limit: StoreLimitOptions

    func run() throws {
        try execute {
            let directory = data.path
            if !RecorderLock.isHeld(directory: directory), let store = try data.existingStore(),
                let open = try store.openMeasurement()
            {
                let specs = open.sources.split(separator: "\n").map(String.init)
                let arguments =
                    ["_record", "--recover", "--data-dir", directory] + specs.flatMap { ["--source", $0] }
                    + limit.arguments
                let started = try Daemon.spawn(arguments: arguments, directory: directory)
                try printLifecycle(
                    LifecycleReport(store: store, id: started.measurement, pid: started.pid), json: output.json,
                    verb: "resumed")
                return
            }
            try printLifecycle(sendLifecycle(ControlRequest(command: "resume"), data: data), json: output.json, verb: "resumed")
        }
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
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try execute {
            let directory = data.path
            if !RecorderLock.isHeld(directory: directory), let store = try data.existingStore(),
                try store.openMeasurement() != nil
            {
                guard let lock = RecorderLock(directory: directory) else {
                    throw CLIError(.unavailable, "a recorder is starting; try again")
                }
                let id = try Recovery.stopInterrupted(store: store)
                _ = consume lock
                try printLifecycle(LifecycleReport(store: store, id: id), json: output.json, verb: "stopped")
                return
            }
            let report = try sendLifecycle(ControlRequest(command: "stop"), data: data)
            // Wait for the recorder to exit, so that the next command finds the directory free.
            for _ in 0..<200 where RecorderLock.isHeld(directory: directory) { usleep(50_000) }
            try printLifecycle(report, json: output.json, verb: "stopped")
        }
    }
}

/// The recorder process: `capture _record`, started by `capture start` and `capture resume`.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_record", abstract: "Run the recorder (started by `capture start`).", shouldDisplay: false)

    @OptionGroup var data: DataDirectoryOptions
    @Option var modality: String = "UNKNOWN"
    @Option(name: .customLong("source")) var sources: [String] = []
    @Option var flushInterval: Double = 1
    @Option var readyFd: Int32?
    @Flag var recover = false
    @Option var sysfsRoot = "/"
    @Option var rate: Double?
    @Option var recordTrace: String?
    @OptionGroup var limit: StoreLimitOptions

    func run() throws {
        try RecorderMain.run(
            directory: data.path, modality: Modality(parsing: modality) ?? .unknown, specs: sources,
            options: SourceSpec.Options(sysfsRoot: sysfsRoot, rate: rate), recordTrace: recordTrace,
            flushInterval: flushInterval, maximumSize: try limit.bytes(), recover: recover, readyDescriptor: readyFd,
            announce: { _ in })
    }
}

/// The body of a recorder process, in the background or in the foreground.
enum RecorderMain {
    static func run(
        directory: String, modality: Modality, specs: [String], options: SourceSpec.Options = .init(),
        recordTrace: String? = nil, flushInterval: Double, maximumSize: Int64? = nil, recover: Bool,
        readyDescriptor: Int32?, announce: (Int64) -> Void
    ) throws {
        var reported = false
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard let lock = RecorderLock(directory: directory) else {
                throw CLIError(.alreadyOpen, "another recorder is running in \(directory)")
            }
            let store = try Store(directory: directory, maximumSize: maximumSize)
            let sources = try specs.map { try SourceSpec.make($0, options: options) }
            let trace = try recordTrace.map { path throws(DeviceError) in try TraceTap(path: path) }
            let recorder = Recorder(
                directory: directory, store: store, sources: sources,
                flushInterval: Int64((flushInterval * 1000).rounded()), trace: trace)
            try recorder.listen()
            let id: Int64
            do {
                id = recover ? try recorder.recoverInterrupted() : try recorder.startNew(modality: modality)
            } catch {
                recorder.abandon()
                throw error
            }
            Daemon.report("ok \(id)", to: readyDescriptor)
            reported = true
            announce(id)
            let failure = recorder.run()
            _ = consume lock
            if let failure { throw failure }
        } catch {
            let failure = CLIError.from(error)
            if !reported { Daemon.report("error \(failure.status.rawValue) \(failure.message)", to: readyDescriptor) }
            FileHandle.standardError.write(Data("capture: \(failure.message)\n".utf8))
            throw ExitCode(failure.status.rawValue)
        }
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
    var maximumSize: String?

    func validate() throws {
        if let maximumSize, Self.parse(maximumSize) == nil {
            throw ValidationError("--max-store-size must be a size such as 65536, 512K, 64M or 2G")
        }
    }

    /// The limit in bytes, if one was given.
    func bytes() throws -> Int64? {
        guard let maximumSize else { return nil }
        guard let bytes = Self.parse(maximumSize) else {
            throw CLIError(.usage, "--max-store-size must be a size such as 65536, 512K, 64M or 2G")
        }
        return bytes
    }

    /// The option again, for the recorder process.
    var arguments: [String] { maximumSize.map { ["--max-store-size", $0] } ?? [] }

    /// `65536`, `512K`, `64M`, `2G` (also `KB`, `KiB` and lower case): bytes, at least 1.
    static func parse(_ text: String) -> Int64? {
        var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
        var factor: Int64 = 1
        for (suffix, value) in [("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 1 << 10), ("MB", 1 << 20),
            ("GB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1)] as [(String, Int64)]
        where digits.hasSuffix(suffix) {
            digits.removeLast(suffix.count)
            factor = value
            break
        }
        guard let number = Int64(digits), number > 0 else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }
}
