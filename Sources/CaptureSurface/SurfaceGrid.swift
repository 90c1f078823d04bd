import Foundation

/// Many rides, one map: windows merged into the cells of a fixed grid by their midpoint, with
/// the exact merged statistics (``SurfaceStatistics/merge(_:)``), so a cell's standard deviation
/// is the one of all its samples together, whichever rides and windows they came from.
///
/// The grid is fixed on the globe, not on a ride: rows are ``cellSize`` metres of latitude from
/// the equator; each row is cut into columns of ``cellSize`` metres of longitude at the row's
/// middle latitude. So the same street falls into the same cells in every run. Cells are kept
/// per modality (a bicycle's and a car's figures do not mix).
package struct SurfaceGrid: Sendable {
    /// Metres: about two windows of 10 m, so a cell gathers every ride through it.
    package static let cellSize = 20.0
    /// Metres per degree of latitude (a sphere of 6,371 km, as ``Geodesy``).
    static let metresPerDegree = .pi * 6_371_000.0 / 180

    /// One cell.
    package struct Cell: Sendable, Equatable, Codable {
        package var row: Int
        package var column: Int
        package var modality: String
        package var statistics: SurfaceStatistics
        /// Measurements with a window here.
        package var rides: Int
        package var windows: Int
        /// The class of the merged standard deviation.
        package var surfaceClass: Int
        /// The cell's outline, closed (south-west, south-east, north-east, north-west, south-west).
        package var outline: [SurfacePoint]
    }

    private struct Key: Hashable {
        var row: Int
        var column: Int
        var modality: String
    }

    private var cells: [Key: (statistics: SurfaceStatistics, rides: Set<Int64>, windows: Int)] = [:]

    package init() {}

    /// Merges `window` into its cell.
    package mutating func add(_ window: SurfaceWindow) {
        guard let first = window.points.first, let last = window.points.last else { return }
        let latitude = (first.latitude + last.latitude) / 2
        let longitude = (first.longitude + last.longitude) / 2
        let row = Int((latitude * Self.metresPerDegree / Self.cellSize).rounded(.down))
        let column = Int((longitude * Self.columnDegrees(row: row).inverse).rounded(.down))
        let key = Key(row: row, column: column, modality: window.modality)
        var cell = cells[key] ?? (SurfaceStatistics(), [], 0)
        cell.statistics.merge(window.statistics)
        cell.rides.insert(window.measurement)
        cell.windows += 1
        cells[key] = cell
    }

    /// Degrees of longitude per column in `row`, and its inverse.
    static func columnDegrees(row: Int) -> (degrees: Double, inverse: Double) {
        let middle = (Double(row) + 0.5) * cellSize / metresPerDegree
        let degrees = cellSize / (metresPerDegree * max(cos(middle * .pi / 180), 0.01))
        return (degrees, 1 / degrees)
    }

    /// The cells, south to north, west to east, classed by `thresholds`.
    package func cells(thresholds: SurfaceThresholds) -> [Cell] {
        cells.map { key, value in
            let south = Double(key.row) * Self.cellSize / Self.metresPerDegree
            let north = Double(key.row + 1) * Self.cellSize / Self.metresPerDegree
            let width = Self.columnDegrees(row: key.row).degrees
            let west = Double(key.column) * width
            let east = Double(key.column + 1) * width
            return Cell(
                row: key.row, column: key.column, modality: key.modality, statistics: value.statistics,
                rides: value.rides.count, windows: value.windows,
                surfaceClass: thresholds.surfaceClass(value.statistics.standardDeviation, modality: key.modality),
                outline: [
                    .init(latitude: south, longitude: west), .init(latitude: south, longitude: east),
                    .init(latitude: north, longitude: east), .init(latitude: north, longitude: west),
                    .init(latitude: south, longitude: west),
                ])
        }.sorted { ($0.row, $0.column, $0.modality) < ($1.row, $1.column, $1.modality) }
    }
}
