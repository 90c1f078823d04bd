import ArgumentParser
import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the measurements in the store, oldest first.")
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let entries = try RecorderControl(directory: data.path).list()
        if output.json {
            try printJSON(entries)
            return
        }
        guard !entries.isEmpty else {
            print("no measurements yet; `capture start` or `capture replay` makes one")
            return
        }
        MeasurementListEntry.table(entries).forEach { print($0) }
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one measurement: its figures (distance, duration, altitude), tracks, events, counts, bounding box.")
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The measurement id (see `capture list`).") var id: Int64
    @Option(help: "Sea-level pressure (QNH) in hPa for absolute barometric altitude; without it, altitude is relative to the first sample.")
    var qnh: Double?

    func validate() throws {
        if let qnh, !(800...1100).contains(qnh) { throw ValidationError("--qnh must be a pressure in hPa between 800 and 1100") }
    }

    func run() throws {
        let summary = try RecorderControl(directory: data.path).summary(of: id, qnh: qnh)
        try output.print(summary, summary.text)
    }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a measurement and everything recorded for it.",
        discussion: "Asks for confirmation on standard input unless --yes is given. A measurement being captured cannot be deleted.")
    @OptionGroup var data: DataDirectoryOptions
    @Argument(help: "The measurement id.") var id: Int64
    @Flag(help: "Do not ask.") var yes = false

    func run() throws {
        guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(id) }
        let record = try store.measurement(id)
        if record.isOpen, RecorderLock.isHeld(directory: data.path) {
            throw CLIError(.alreadyOpen, "measurement \(id) is being captured; `capture stop` it first")
        }
        if !yes {
            FileHandle.standardError.write(Data("delete \(try store.brief(id))? [y/N] ".utf8))
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            if isatty(0) == 0 { FileHandle.standardError.write(Data("\n".utf8)) }
            guard answer == "y" || answer == "yes" else {
                throw CLIError(.usage, "not deleted (answer y to delete, or pass --yes)")
            }
        }
        try store.deleteMeasurement(id, directory: data.path)
        print("deleted measurement \(id)")
    }
}

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Turn a recorded trace into a finished measurement.",
        discussion: """
            Runs the trace through the same recording engine as live capture, with timestamps \
            from the trace, so the same trace always gives the same stored data. Prints the new \
            measurement id. A malformed trace is reported with its file, line and what was \
            expected, and nothing of it is kept. The format is described in docs/trace-format.md. \
            Receiver logs are also accepted, recognised by content: NMEA 0183 and u-blox UBX \
            (binary) or both mixed, LF or CRLF, with `#` comment lines (as gpsd keeps them); gpsd \
            JSON logs (`gpspipe -w`); GPX 1.1. They give fixes, and a u-blox dead-reckoning \
            module's ESF-RAW/ESF-MEAS also accelerometer and gyroscope samples. With \
            upload.auto in the configuration, the new measurement is delivered in the background \
            (`capture sync`), as after `capture stop`.
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The trace file: native trace, NMEA log, gpsd JSON log or GPX.") var trace: String
    @Option(help: "Overrides the trace's initial modality.") var modality: Modality?
    @Option(help: "Play at X times the trace's pace instead of as fast as possible.") var speed: Double?
    @Flag(help: "As fast as possible (the default).") var max = false
    @Option(help: "Seconds of trace time per commit (0.05 to 3600).") var flushInterval: FlushInterval = .default

    func validate() throws {
        if let speed, !(speed > 0 && speed.isFinite) { throw ValidationError("--speed must be a positive number") }
        if speed != nil, max { throw ValidationError("--speed and --max exclude each other") }
    }

    func run() throws {
        let store = try data.openStore(durability: .relaxed)
        let summary = try CaptureRecorder.Replay(
            path: trace, modality: modality, flushInterval: flushInterval.milliseconds, speed: speed
        ).runTimed(into: store)
        try output.print(summary, "\(summary.measurement)")
        // A finished measurement: with upload.auto it is delivered in the background too.
        try data.device().deliverInBackground()
    }
}
