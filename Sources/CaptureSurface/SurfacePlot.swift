package import CaptureExport
package import CaptureStorage

extension Surface {
    /// The colours of classes 0 (good) to 3 (bad): green to red, distinguishable in print.
    package static let classColours = ["#1a9850", "#a6d96a", "#fdae61", "#d7191c"]

    /// `capture plot ID --colour surface`: the plot (``PlotExporter``) with the track coloured by
    /// the surface class of each window, grey where no window was rated (too slow, a track's
    /// remainder, a privacy zone), and a legend of the classes.
    ///
    /// - Throws: ``SurfaceError``; a file destination is then left as it was.
    package static func plot(
        _ id: Int64, in store: Store, options: SurfaceOptions, export: ExportOptions, to destination: ExportDestination
    ) throws(SurfaceError) {
        let report = try SurfaceAnalysis.analyse(id, in: store, options: options)
        let colouring = PlotColouring(
            title: "surface class (sd of vertical acceleration, \(report.modality.lowercased()))",
            labels: ["0 good", "1", "2", "3 bad"], colours: classColours,
            spans: report.windows.map { ($0.start, $0.end, $0.surfaceClass) })
        do {
            try PlotExporter(colouring: colouring).export(id, from: store, options: export, to: destination)
        } catch {
            throw .export(error)
        }
    }
}
