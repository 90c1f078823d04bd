package import CaptureCore
import CaptureFormats
package import CaptureStorage
import Foundation

/// The tables of the CSV export, one per sensor, and the rider's markers.
package enum CSVTable: String, Sendable, CaseIterable {
    case accelerometer, gyroscope, magnetometer, pressure, locations, markers

    /// The motion sensor of a motion table, `nil` for pressure and locations.
    package var sensor: MotionSensor? {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .magnetometer: .magnetometer
        case .pressure, .locations, .markers: nil
        }
    }

    /// The file name in an output directory (`accelerometer.csv`).
    package var fileName: String { "\(rawValue).csv" }
}

/// CSV: one table per sensor in SI units with a header line: accelerometer (m/s²), gyroscope
/// (rad/s), magnetometer (µT), pressure (Pa), locations (degrees, m, m/s, then the fix quality:
/// satellites used, HDOP, VDOP, PDOP and `2d`/`3d`, empty where the receiver gave none; and the
/// modality at the fix's time), markers (the rider's, ``Marker``: time, place where a fix gave
/// one, what made it). Times
/// are Unix milliseconds; `track` 0 marks data in a pause gap. The text is ``CSVWriter``'s
/// (CaptureFormats/CSV, beside the locations table's reader).
///
/// To a file destination (a directory, created if needed) all six tables are written, each
/// atomically; to standard output the one table of ``ExportOptions/table`` (default: locations).
/// A destination ending in `.csv` is refused with ``ExportError/directoryExpected(path:tables:)``
/// before anything is created.
package struct CSVExporter: MeasurementExporter {
    package let name = "csv"
    package let summary = """
        one table per sensor in SI units with a header line: accelerometer (m/s²), gyroscope \
        (rad/s), magnetometer (µT), pressure (Pa), locations (degrees, m, m/s), and the rider's \
        markers (time, place, what made it). Times are Unix milliseconds; `track` 0 marks data in \
        a pause gap. With -o DIR the six files accelerometer.csv, gyroscope.csv, \
        magnetometer.csv, pressure.csv, locations.csv and markers.csv are \
        written into DIR (created if needed); without -o, or with -o -, the one table chosen by \
        --table (default: locations) goes to standard output. -o x.csv is refused (exit 64) \
        rather than made a directory: give a directory, or --table to standard output (capture \
        export 1 --format csv --table gyroscope > gyr.csv).
        """

    /// The CSV exporter.
    package init() {}

    package func export(
        _ id: Int64, from store: Store, options: ExportOptions, to destination: ExportDestination
    ) throws(ExportError) {
        let record = try finishedRecord(id, in: store)
        switch destination {
        case .standardOutput:
            try OutputSink.writing(to: .standardOutput) { try write(options.table ?? .locations, of: record, from: store, options: options, to: $0) }
        case .file(let directory):
            // A multi-table export to `x.csv` would otherwise silently become a directory of that name.
            guard !directory.lowercased().hasSuffix(".csv") else {
                throw .directoryExpected(path: directory, tables: CSVTable.allCases.count)
            }
            do {
                try PrivateFiles.createDirectory(directory)
            } catch {
                throw .cannotCreateDirectory(path: directory, reason: error.localizedDescription)
            }
            for table in CSVTable.allCases {
                let path = (directory as NSString).appendingPathComponent(table.fileName)
                try OutputSink.writing(to: .file(path)) { try write(table, of: record, from: store, options: options, to: $0) }
            }
        }
    }

    /// Writes one table.
    func write(_ table: CSVTable, of record: MeasurementRecord, from store: Store, options: ExportOptions, to sink: OutputSink) throws {
        let privacy = try options.privacy(of: record.id, in: store)
        if let sensor = table.sensor {
            try sink.write(CSVWriter.header(of: sensor))
            var failure: (any Error)?
            try store.forEachBatch(of: record.id, sensor: sensor) { batch in
                guard failure == nil else { return }
                do {
                    var lines = ""
                    for sample in try Store.samples(of: batch) where !privacy.hides(time: sample.timestamp) {
                        CSVWriter.append(sample, track: batch.track, to: &lines)
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
        case .markers:
            try sink.write(CSVWriter.markersHeader)
            for marker in options.markers(of: record.id, in: store, privacy) { try sink.write(CSVWriter.line(marker)) }
        case .pressure:
            try sink.write(CSVWriter.pressureHeader)
            for sample in try store.pressures(of: record.id) where !privacy.hides(time: sample.timestamp) {
                try sink.write(CSVWriter.line(sample))
            }
        default:
            try sink.write(CSVWriter.locationsHeader)
            let events = try store.events(of: record.id)
            var rows: [(track: Int, fix: Fix)] = []
            for track in 0...max(record.trackCount, 0) {
                rows += options.kept(try store.fixes(of: record.id, track: track), privacy).map { (track, $0) }
            }
            rows.sort { $0.fix.timestamp < $1.fix.timestamp }
            for (track, fix) in rows {
                try sink.write(
                    CSVWriter.line(
                        fix, track: track, modality: Modality.spelling(at: fix.timestamp, events: events, initial: record.modality)))
            }
        }
    }
}
