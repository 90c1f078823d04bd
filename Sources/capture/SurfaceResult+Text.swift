import CaptureCore
import CaptureSurface

extension Surface.Result {
    /// A few lines for a person: per measurement its windows by class, the tilt, what was left out.
    var text: String {
        var lines: [String] = []
        for report in reports {
            var counts = [0, 0, 0, 0]
            for window in report.windows { counts[min(window.surfaceClass, 3)] += 1 }
            let tilt = report.tilt.map { " · mount tilted \(Int($0.rounded()))°" } ?? ""
            lines.append(
                "measurement \(report.measurement) (\(report.modality)): \(TextFormat.count(report.windows.count, "window")) of "
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
                "merged: \(TextFormat.count(cells.count, "cell")) of \(SurfaceWriter.number(SurfaceGrid.cellSize)) m from "
                    + "\(TextFormat.count(reports.count, "measurement")) · class 0: \(counts[0]), 1: \(counts[1]), 2: \(counts[2]), 3: \(counts[3])")
        }
        if let output { lines.append("wrote \(output)") }
        return lines.joined(separator: "\n")
    }
}
