package import CaptureExport
package import CaptureStorage

/// Why a surface analysis or its output failed. Nothing is left at an output file then.
package enum SurfaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store failed, or has no such measurement.
    case store(StoreError)
    /// The measurement has no accelerometer samples.
    case noAccelerometer(Int64)
    /// `--all` found no finished measurement with an accelerometer.
    case nothingToAnalyse
    /// The output file's name ends in none of .geojson, .csv, .gpkg.
    case unknownFormat(path: String)
    /// The output could not be written.
    case export(ExportError)

    /// One line: what failed.
    package var description: String {
        switch self {
        case .store(let error): error.description
        case .noAccelerometer(let id): "measurement \(id) has no accelerometer samples"
        case .nothingToAnalyse: "no finished measurement has accelerometer samples"
        case .unknownFormat(let path): "\(path): the output's name must end in .geojson, .csv or .gpkg"
        case .export(let error): error.description
        }
    }
}
