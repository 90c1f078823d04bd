import CaptureCore
import CaptureExport
package import CaptureStorage

/// `capture surface`: the one entry point a front end calls. Analyses the measurements, merges
/// them into the grid when asked, writes the output file whose name's ending picks the format.
///
/// ```swift
/// let result = try Surface.run(.all, merge: true, in: store, options: SurfaceOptions(), output: "map.gpkg")
/// print(result.text)  // the front end's words
/// ```
package enum Surface {
    /// Which measurements.
    package enum Selection: Sendable, Equatable {
        case measurements([Int64])
        /// Every finished measurement with accelerometer samples.
        case all
    }

    /// What a run found.
    package struct Result: Sendable, Equatable, Codable {
        package var reports: [SurfaceReport]
        /// With `merge`: the grid's cells; else empty.
        package var cells: [SurfaceGrid.Cell]
        package var merged: Bool
        /// The file written, if any.
        package var output: String?
    }

    /// Analyses `selection` and writes `output` (`.geojson`, `.csv` or `.gpkg`; `nil`: no file).
    ///
    /// - Throws: ``SurfaceError``; a file is then left as it was (not created, or untouched).
    package static func run(
        _ selection: Selection, merge: Bool, in store: Store, options: SurfaceOptions, output: String?
    ) throws(SurfaceError) -> Result {
        let format = try output.map { path throws(SurfaceError) in
            guard let format = SurfaceFormat(path: path) else { throw .unknownFormat(path: path) }
            return format
        }
        var reports: [SurfaceReport] = []
        switch selection {
        case .measurements(let ids):
            for id in ids { reports.append(try SurfaceAnalysis.analyse(id, in: store, options: options)) }
        case .all:
            let records: [MeasurementRecord]
            do { records = try store.measurements() } catch { throw .store(error) }
            for record in records where record.status == .finished {
                do {
                    reports.append(try SurfaceAnalysis.analyse(record.id, in: store, options: options))
                } catch .noAccelerometer {
                    continue
                }
            }
            guard !reports.isEmpty else { throw .nothingToAnalyse }
        }
        var cells: [SurfaceGrid.Cell] = []
        if merge {
            var grid = SurfaceGrid()
            for report in reports { for window in report.windows { grid.add(window) } }
            cells = grid.cells(thresholds: options.thresholds)
        }
        let result = Result(reports: reports, cells: cells, merged: merge, output: output)
        if let output, let format {
            do {
                try SurfaceWriter.write(result, as: format, to: output, store: store, options: options)
            } catch let error as SurfaceError {
                throw error
            } catch let error as ExportError {
                throw .export(error)
            } catch {
                throw .export(ExportError.cannotWrite(path: output, reason: "\(error)"))
            }
        }
        return result
    }
}
