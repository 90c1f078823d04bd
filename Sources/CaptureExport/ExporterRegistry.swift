/// The export formats by name, in the order `--help` lists them.
package struct ExporterRegistry: Sendable {
    /// The exporters, in registration order.
    package private(set) var exporters: [any MeasurementExporter]

    /// A registry of `exporters`; a later one with the same name replaces an earlier one.
    package init(_ exporters: [any MeasurementExporter] = []) {
        self.exporters = []
        for exporter in exporters { register(exporter) }
    }

    /// The formats `capture export` offers. A new format is one registration line here.
    package static let standard = ExporterRegistry([
        CyfaceExporter(),
        GPXExporter(),
        GeoJSONExporter(),
        CSVExporter(),
        GeoPackageExporter(),
        PlotExporter(),
    ])

    /// Adds `exporter`, replacing one of the same name.
    package mutating func register(_ exporter: any MeasurementExporter) {
        if let index = exporters.firstIndex(where: { $0.name == exporter.name }) {
            exporters[index] = exporter
        } else {
            exporters.append(exporter)
        }
    }

    /// The names, in registration order (`cyface, gpx, geojson, csv, gpkg, svg`).
    package var names: [String] { exporters.map(\.name) }

    /// The exporter called `name` (exact spelling), or `nil`.
    package func exporter(named name: String) -> (any MeasurementExporter)? {
        exporters.first { $0.name == name }
    }

    /// A paragraph per format: its name, padded, and its summary.
    package var help: String {
        exporters.map { $0.name.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n\n")
    }
}
