import ArgumentParser
import CaptureCore
import CaptureExport
import CaptureRecorder
import CaptureStorage
import CaptureSurface

/// A `--format` of `capture export`: a name from ``ExporterRegistry/standard``.
struct ExportFormat: ExpressibleByArgument {
    let exporter: any MeasurementExporter

    init?(argument: String) {
        guard let exporter = ExporterRegistry.standard.exporter(named: argument) else { return nil }
        self.exporter = exporter
    }

    static var allValueStrings: [String] { ExporterRegistry.standard.names }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// A `--table` of `capture export --format csv`.
struct ExportTable: ExpressibleByArgument {
    let table: CSVTable

    init?(argument: String) {
        guard let table = CSVTable(rawValue: argument) else { return nil }
        self.table = table
    }

    static var allValueStrings: [String] { CSVTable.allCases.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a measurement as a Cyface transfer file, GPX, GeoJSON, CSV or a GeoPackage.",
        discussion: """
            \(ExporterRegistry.standard.help)

            privacy.zones (configuration file) apply to every format, as to uploads: fixes \
            inside a zone are left out, and so are the motion and pressure samples from the last \
            fix outside before such fixes to the first fix outside after them. The store keeps \
            everything.

            --clean keeps only fixes with 1 < speed < 100 m/s and accuracy < 20 m (gpx, geojson, \
            csv locations). Only finished measurements: every format refuses an open one (exit \
            3). Files are written atomically (a temporary file, then a rename; on failure nothing \
            is left behind). Without -o (or with -o -) output goes to standard output.

            \(ExitStatus.help)
            """)
    @OptionGroup var data: DataDirectoryOptions
    @Argument(help: "The measurement id (see `capture list`).") var id: Int64
    @Option(help: "The output format.") var format: ExportFormat
    @Option(name: .shortAndLong, help: ArgumentHelp("The output file (a directory for csv); - for standard output.", valueName: "path"))
    var output: String?
    @Option(help: "With --format csv to standard output: which table (default: locations).")
    var table: ExportTable?
    @Flag(help: "Keep only clean fixes (1 < speed < 100 m/s, accuracy < 20 m).") var clean = false

    var destination: ExportDestination { ExportDestination(path: output) }

    func validate() throws {
        if clean, !format.exporter.filtersFixes {
            throw ValidationError(
                "--clean does not apply to --format \(format.exporter.name): a transfer file always carries every fix")
        }
        if table != nil, !(format.exporter is CSVExporter) { throw ValidationError("--table applies to --format csv only") }
        if table != nil, destination != .standardOutput {
            throw ValidationError("--table applies to standard output only; -o DIR writes every table")
        }
    }

    func run() throws {
        let zones = try data.device().privacyZones.value
        guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(id) }
        try format.exporter.export(
            id, from: store,
            options: ExportOptions(dataDirectory: data.path, clean: clean, table: table?.table, privacyZones: zones),
            to: destination)
        destination.writtenLine.map { print($0) }
    }
}

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a measurement as one SVG picture: the track coloured by speed, and speed, altitude and acceleration over time.",
        discussion: """
            On top, the track on a local map projection (north up, metres true in both \
            directions), coloured from blue (slow) to red (fast) on a scale from 0 to a round \
            speed above the fastest fix; a green dot marks the start, a black square the end, \
            ⏸-circles the pauses (where a track ends and the next begins later), purple diamonds \
            a change of modality with its new value; a scale bar and the speed legend sit at the \
            bottom. Beneath it, over seconds, minutes or hours since the start: speed (km/h; the \
            receiver's, else from consecutive fixes), altitude (m, as `capture show` has it: \
            barometric if there is pressure, else GNSS; the label says which), |acceleration| \
            (m/s², 9.8 at rest; band: each 1/430's lowest to highest, line: mean). Pauses shaded, \
            no line across one; modality changes dashed. The title states the ride's figures.

            The store is streamed (pressure aside), so a day-long ride takes little memory; the \
            track leaves out points closer than 1.5 px to the previous one. Open the file in any \
            browser. privacy.zones apply as in every export; --clean keeps only clean fixes. The \
            same picture: `capture export ID --format svg`. --colour surface colours the track \
            by the class of each 10 m window instead (`capture surface --help`), grey where none.

            EXAMPLE: capture plot 1 -o ride.svg

            \(ExitStatus.help)
            """)
    @OptionGroup var data: DataDirectoryOptions
    @Argument(help: "The measurement id (see `capture list`).") var id: Int64
    @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file to write; - for standard output.", valueName: "path"))
    var output: String?
    @Flag(help: "Keep only clean fixes (1 < speed < 100 m/s, accuracy < 20 m).") var clean = false
    @Option(help: "Colour the track by speed, or by surface class (capture surface).") var colour = PlotColour.speed

    enum PlotColour: String, ExpressibleByArgument, CaseIterable { case speed, surface }

    func run() throws {
        let device = try data.device()
        guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(id) }
        let options = ExportOptions(dataDirectory: data.path, clean: clean, privacyZones: device.privacyZones.value)
        if colour == .speed { try PlotExporter().export(id, from: store, options: options, to: .init(path: output)) } else {
            let surface = SurfaceOptions(thresholds: try device.surfaceThresholds(), privacyZones: device.privacyZones.value)
            try Surface.plot(id, in: store, options: surface, export: options, to: ExportDestination(path: output))
        }
        ExportDestination(path: output).writtenLine.map { print($0) }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a finished measurement from a Cyface transfer file.",
        discussion: """
            Reads a Cyface v3 transfer file (raw deflate, zlib, gzip or uncompressed; with or \
            without the 00 03 header) and stores it as one new finished measurement, in one \
            transaction, then prints its id. Tracks are sliced from the lifecycle events as the \
            Cyface server does: a track runs from START or a RESUME to the next PAUSE, the last \
            one to the end. Fixes and motion samples strictly inside a pause gap are kept but \
            belong to no track (track 0), so they count for no track's distance. Events are \
            stored as given; metadata events (EVENT_TYPE_UNSPECIFIED) are skipped. Sensor \
            batches are stored as they came, split only at track boundaries and at 800 samples.

            Format v1/v2, truncated or corrupt files are refused with one line naming the \
            problem and its byte offset (exit 65); nothing is stored. A recording that is not a \
            transfer file (a capture trace, GPX, GeoJSON, CSV, an NMEA/UBX or gpsd log) is \
            refused saying what it is: `capture replay FILE` reads those.

            The same ride is not stored twice by accident: a file whose content (fixes, events, \
            samples, whatever its compression) was imported before, or was exported from a ride \
            recorded here, is refused with exit 65, naming the measurement that holds it, as an \
            upload would send it twice. --again imports it as a new measurement on purpose.

            \(ExitStatus.help)
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The transfer file (.ccyf).") var file: String
    @Flag(help: "Import a ride that is already stored once more, as a new measurement, on purpose.")
    var again = false

    func run() throws {
        let summary = try FileImport.transferFile(at: file, into: data.openStore(), duplicates: again ? .importAgain : .refuse)
        try output.print(summary, "\(summary.measurement)")
    }
}
