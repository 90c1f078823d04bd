/// The export formats by name, in the order `--help` lists them.
public struct ExporterRegistry: Sendable {
    /// The exporters, in registration order.
    public private(set) var exporters: [any MeasurementExporter]

    /// A registry of `exporters`; a later one with the same name replaces an earlier one.
    public init(_ exporters: [any MeasurementExporter] = []) {
        self.exporters = []
        for exporter in exporters { register(exporter) }
    }

    /// The formats `capture export` offers. A new format is one registration line here.
    public static let standard = ExporterRegistry([
        CyfaceExporter(),
        GPXExporter(),
        GeoJSONExporter(),
        CSVExporter(),
        GeoPackageExporter(),
        PlotExporter(),
    ])

    /// Adds `exporter`, replacing one of the same name.
    public mutating func register(_ exporter: any MeasurementExporter) {
        if let index = exporters.firstIndex(where: { $0.name == exporter.name }) {
            exporters[index] = exporter
        } else {
            exporters.append(exporter)
        }
    }

    /// The names, in registration order (`cyface, gpx, geojson, csv, gpkg, svg`).
    public var names: [String] { exporters.map(\.name) }

    /// The exporter called `name` (exact spelling), or `nil`.
    public func exporter(named name: String) -> (any MeasurementExporter)? {
        exporters.first { $0.name == name }
    }

    /// A paragraph per format: its name, padded, and its summary.
    public var help: String {
        exporters.map { $0.name.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n\n")
    }
}
