import CaptureCore
import CaptureExport
package import CaptureStorage

/// `capture surface`: the one entry point a front end calls. Analyses the measurements, merges
/// them into the grid when asked, writes the output file whose name's ending picks the format.
///
/// ```swift
/// let result = try Surface.run(.all, merge: true, in: store, options: SurfaceOptions(), output: "map.gpkg")
/// print(result.text)
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

extension Surface.Result {
    /// A few lines for a person: per measurement its windows by class, the tilt, what was left out.
    package var text: String {
        var lines: [String] = []
        for report in reports {
            var counts = [0, 0, 0, 0]
            for window in report.windows { counts[min(window.surfaceClass, 3)] += 1 }
            let tilt = report.tilt.map { " · mount tilted \(Int($0.rounded()))°" } ?? ""
            lines.append(
                "measurement \(report.measurement) (\(report.modality)): \(CaptureCore.TextFormat.count(report.windows.count, "window")) of "
                    + "\(SurfaceWriter.number(report.window)) m\(tilt) · class 0: \(counts[0]), 1: \(counts[1]), "
                    + "2: \(counts[2]), 3: \(counts[3])")
            let left = report.excluded
            lines.append(
                "  left out: \(left.slow) slower than \(SurfaceWriter.number(report.minimumSpeed)) m/s, "
                    + "\(left.privacy) in a privacy zone, \(left.partial) track ends shorter than a window, "
                    + "\(left.fewSamples) with fewer than \(SurfaceOptions.minimumSamples) samples; "
                    + "\(left.samplesOutside) samples in pauses or outside any window")
        }
        if merged {
            var counts = [0, 0, 0, 0]
            for cell in cells { counts[min(cell.surfaceClass, 3)] += 1 }
            lines.append(
                "merged: \(CaptureCore.TextFormat.count(cells.count, "cell")) of \(SurfaceWriter.number(SurfaceGrid.cellSize)) m from "
                    + "\(CaptureCore.TextFormat.count(reports.count, "measurement")) · class 0: \(counts[0]), 1: \(counts[1]), 2: \(counts[2]), 3: \(counts[3])")
        }
        if let output { lines.append("wrote \(output)") }
        return lines.joined(separator: "\n")
    }
}
