import ArgumentParser
import CaptureCore
import CaptureStorage
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The formats of `capture export`.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case cyface, gpx, geojson, csv
}

/// The tables of `capture export --format csv`.
enum CSVTable: String, ExpressibleByArgument, CaseIterable {
    case accelerometer, gyroscope, magnetometer, pressure, locations

    var sensor: MotionSensor? {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .magnetometer: .magnetometer
        case .pressure, .locations: nil
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a measurement as a Cyface transfer file, GPX, GeoJSON or CSV.",
        discussion: """
            cyface   the Cyface v3 transfer file, byte for byte what an upload sends (raw \
            deflate of 00 03 + protobuf). Only finished measurements (exit 3 otherwise); the \
            file is cached in <data dir>/transfer/ and reused until the measurement changes. \
            It always carries every fix, so --clean does not apply.

            gpx      GPX 1.1: one <trk> with one <trkseg> per track; each point has <ele>, \
            <time> and, in <extensions>, speed (m/s) and horizontal accuracy (m).

            geojson  a FeatureCollection with one LineString feature per track (geometry null \
            when the track has fewer than two fixes); properties: track, modality (at the \
            track's start), start and end (ISO 8601 UTC), distance (metres, geodesic over clean \
            fixes, the figure `capture show` reports), fixes.

            csv      one table per sensor in SI units with a header line: accelerometer (m/s²), \
            gyroscope (rad/s), magnetometer (µT), pressure (Pa), locations (degrees, m, m/s). \
            Times are Unix milliseconds; `track` 0 marks data in a pause gap. With -o DIR the \
            five files accelerometer.csv, gyroscope.csv, magnetometer.csv, pressure.csv and \
            locations.csv are written into DIR (created if needed); without -o, or with -o -, \
            the one table chosen by --table (default: locations) goes to standard output.

            --clean keeps only fixes with 1 < speed < 100 m/s and accuracy < 20 m (gpx, geojson, \
            csv locations). Files are written atomically: a temporary file, then a rename; on \
            failure nothing is left behind. Without -o (or with -o -) output goes to standard \
            output.

            \(ExitStatus.help)
            """)
    @OptionGroup var data: DataDirectoryOptions
    @Argument(help: "The measurement id (see `capture list`).") var id: Int64
    @Option(help: "The output format.") var format: ExportFormat
    @Option(name: .shortAndLong, help: ArgumentHelp("The output file (a directory for csv); - for standard output.", valueName: "path"))
    var output: String?
    @Option(help: "With --format csv to standard output: which table (default: locations).")
    var table: CSVTable?
    @Flag(help: "Keep only clean fixes (1 < speed < 100 m/s, accuracy < 20 m).") var clean = false

    var toStandardOutput: Bool { output == nil || output == "-" }

    func validate() throws {
        if clean, format == .cyface {
            throw ValidationError("--clean does not apply to --format cyface: a transfer file always carries every fix")
        }
        if table != nil, format != .csv { throw ValidationError("--table applies to --format csv only") }
        if table != nil, !toStandardOutput {
            throw ValidationError("--table applies to standard output only; -o DIR writes every table")
        }
    }

    func run() throws {
        try execute {
            guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(id) }
            let record = try store.measurement(id)
            switch format {
            case .cyface:
                let file = try store.transferFile(for: id, directory: data.path)
                let sink = try OutputSink(path: output)
                try copy(file.path, to: sink)
                try sink.commit()
            case .gpx:
                let sink = try OutputSink(path: output)
                try Exporter(store: store, record: record, clean: clean).gpx(to: sink)
                try sink.commit()
            case .geojson:
                let sink = try OutputSink(path: output)
                try Exporter(store: store, record: record, clean: clean).geoJSON(to: sink)
                try sink.commit()
            case .csv:
                let exporter = Exporter(store: store, record: record, clean: clean)
                if toStandardOutput {
                    let sink = try OutputSink(path: nil)
                    try exporter.csv(table ?? .locations, to: sink)
                    try sink.commit()
                } else if let output {
                    do {
                        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                    } catch {
                        throw CLIError(.ioError, "cannot create the directory \(output): \(error.localizedDescription)")
                    }
                    for table in CSVTable.allCases {
                        let sink = try OutputSink(path: (output as NSString).appendingPathComponent("\(table.rawValue).csv"))
                        try exporter.csv(table, to: sink)
                        try sink.commit()
                    }
                }
            }
        }
    }

    private func copy(_ path: String, to sink: OutputSink) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError(.ioError, "cannot read \(path)")
        }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            try sink.write([UInt8](chunk))
        }
    }
}

/// Standard output, or a file written atomically; output is buffered in 64 KiB pieces.
final class OutputSink {
    private let file: AtomicFile?
    private var buffer: [UInt8] = []

    /// `nil` or `-` is standard output.
    init(path: String?) throws {
        if let path, path != "-" {
            file = try AtomicFile(path: path)
        } else {
            file = nil
        }
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        if let file {
            try file.append(buffer)
        } else {
            try FileHandle.standardOutput.write(contentsOf: buffer)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and, for a file, renames it into place.
    func commit() throws {
        try flush()
        try file?.commit()
    }
}

/// The text exports of one measurement.
struct Exporter {
    let store: Store
    let record: MeasurementRecord
    let clean: Bool

    private func kept(_ fixes: [Fix]) -> [Fix] { clean ? fixes.filter(LocationCleaning.isClean) : fixes }

    /// The modality in force at `time`: the last change at or before it, else the initial one.
    private func modality(at time: Int64, events: [Event]) -> String {
        events.last { $0.type == .modalityTypeChange && $0.timestamp <= time }?.value ?? record.modality
    }

    func gpx(to sink: OutputSink) throws {
        try sink.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="capture" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:capture="urn:capture:gpx:1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
              <metadata>
                <name>measurement \(record.id)</name>
                <time>\(Self.isoTime(record.startTime))</time>
              </metadata>
              <trk>
                <name>measurement \(record.id)</name>
                <type>\(Self.xmlEscaped(record.modality))</type>

            """)
        for track in try store.tracks(of: record.id) {
            try sink.write("    <trkseg>\n")
            for fix in kept(try store.fixes(of: record.id, track: track.number)) {
                var point = "      <trkpt lat=\"\(Self.degrees(fix.latitude))\" lon=\"\(Self.degrees(fix.longitude))\">"
                if let altitude = fix.altitude { point += "<ele>\(Self.decimal(altitude, 2))</ele>" }
                point += "<time>\(Self.isoTime(fix.timestamp))</time>"
                if fix.speed != nil || fix.horizontalAccuracy != nil {
                    point += "<extensions>"
                    if let speed = fix.speed { point += "<capture:speed>\(Self.decimal(speed, 2))</capture:speed>" }
                    if let accuracy = fix.horizontalAccuracy {
                        point += "<capture:accuracy>\(Self.decimal(accuracy, 2))</capture:accuracy>"
                    }
                    point += "</extensions>"
                }
                try sink.write(point + "</trkpt>\n")
            }
            try sink.write("    </trkseg>\n")
        }
        try sink.write("  </trk>\n</gpx>\n")
    }

    func geoJSON(to sink: OutputSink) throws {
        let events = try store.events(of: record.id)
        try sink.write("{\"type\":\"FeatureCollection\",\"features\":[")
        for (index, track) in try store.tracks(of: record.id).enumerated() {
            let all = try store.fixes(of: record.id, track: track.number)
            let fixes = kept(all)
            var feature = index == 0 ? "\n" : ",\n"
            feature += "{\"type\":\"Feature\",\"properties\":{"
            feature += "\"track\":\(track.number),\"modality\":\(JSONString.quoted(modality(at: track.startTime, events: events)))"
            feature += ",\"start\":\"\(Self.isoTime(track.startTime))\""
            feature += ",\"end\":" + (track.endTime.map { "\"\(Self.isoTime($0))\"" } ?? "null")
            feature += ",\"distance\":\(Self.decimal(Geodesy.trackDistance(all), 3)),\"fixes\":\(fixes.count)},\"geometry\":"
            if fixes.count >= 2 {
                feature += "{\"type\":\"LineString\",\"coordinates\":["
                feature += fixes.map { fix in
                    var position = "[\(Self.degrees(fix.longitude)),\(Self.degrees(fix.latitude))"
                    if let altitude = fix.altitude { position += ",\(Self.decimal(altitude, 2))" }
                    return position + "]"
                }.joined(separator: ",")
                feature += "]}}"
            } else {
                feature += "null}"
            }
            try sink.write(feature)
        }
        try sink.write("\n]}\n")
    }

    func csv(_ table: CSVTable, to sink: OutputSink) throws {
        if let sensor = table.sensor {
            let unit =
                switch sensor {
                case .accelerometer: "m_s2"
                case .gyroscope: "rad_s"
                case .magnetometer: "uT"
                }
            try sink.write("time_unix_ms,track,x_\(unit),y_\(unit),z_\(unit)\n")
            var failure: (any Error)?
            try store.forEachBatch(of: record.id, sensor: sensor) { batch in
                guard failure == nil else { return }
                do {
                    var lines = ""
                    for sample in try Store.samples(of: batch) {
                        lines += "\(sample.timestamp),\(batch.track),\(sample.x),\(sample.y),\(sample.z)\n"
                    }
                    try sink.write(lines)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            return
        }
        switch table {
        case .pressure:
            try sink.write("time_unix_ms,pressure_pa\n")
            for sample in try store.pressures(of: record.id) {
                try sink.write("\(sample.timestamp),\(Self.decimal(sample.hectopascals * 100, 2))\n")
            }
        default:
            try sink.write(
                "time_unix_ms,track,latitude_deg,longitude_deg,altitude_m,horizontal_accuracy_m,vertical_accuracy_m,speed_m_s,course_deg\n")
            var rows: [(track: Int, fix: Fix)] = []
            for track in 0...max(record.trackCount, 0) {
                rows += kept(try store.fixes(of: record.id, track: track)).map { (track, $0) }
            }
            rows.sort { $0.fix.timestamp < $1.fix.timestamp }
            func optional(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
            for (track, fix) in rows {
                try sink.write(
                    "\(fix.timestamp),\(track),\(fix.latitude),\(fix.longitude),\(optional(fix.altitude)),"
                        + "\(optional(fix.horizontalAccuracy)),\(optional(fix.verticalAccuracy)),\(optional(fix.speed)),"
                        + "\(optional(fix.course))\n")
            }
        }
    }

    // MARK: - Formatting

    /// Degrees with 7 decimals (about 1 cm), never in exponent notation.
    static func degrees(_ value: Double) -> String { decimal(value, 7) }

    /// A fixed-point decimal (valid as xsd:decimal and JSON).
    static func decimal(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.\(places)f", value)
    }

    /// `2026-11-22T02:31:58.123Z` from Unix milliseconds.
    static func isoTime(_ ms: Int64) -> String {
        var seconds = time_t(ms.quotientAndRemainder(dividingBy: 1000).quotient)
        var millis = ms % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(millis))
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
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
            problem and its byte offset (exit 65); nothing is stored.

            \(ExitStatus.help)
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The transfer file (.ccyf).") var file: String

    func run() throws {
        try execute {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else {
                throw CLIError(.notFound, "no such file: \(file)")
            }
            // Not /dev/zero, a FIFO or a file larger than any transfer file: read none of it.
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw CLIError(.dataError, "\(file) is not a regular file; import a .ccyf file")
            }
            guard info.st_size <= TransferFileDecoder.maximumDecompressedSize else {
                throw CLIError(.dataError, "\(file): \(info.st_size) bytes is larger than any transfer file; nothing imported")
            }
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw CLIError(.ioError, "cannot read \(file): check its permissions")
            }
            let decoded: CyfaceTransferFile
            do {
                decoded = try TransferFileDecoder.decode([UInt8](bytes))
            } catch {
                throw CLIError(.dataError, "\(file): not a Cyface v3 transfer file: \(error)")
            }
            let summary: ImportSummary
            do {
                summary = try data.openStore().importMeasurement(decoded, sources: "import:\(file)")
            } catch let error as ImportError {
                throw CLIError(.dataError, "\(file): \(error)")
            } catch let error as CyfaceError {
                throw CLIError(.dataError, "\(file): \(error)")
            }
            if output.json {
                try printJSON(summary)
            } else {
                print(summary.measurement)
            }
        }
    }
}
