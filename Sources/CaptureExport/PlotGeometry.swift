import Foundation

/// The arithmetic of `capture plot`, free of the store and of SVG: a local map projection, round
/// tick steps, the speed colour scale and fixed-width time bins.
enum PlotGeometry {
    /// Mean Earth radius (IUGG), m: the projection is local, so a sphere is close enough.
    static let earthRadius = 6_371_008.8

    /// An equirectangular projection around a reference point, in metres east and north of it:
    /// true to well under 1 % over the few kilometres of a ride.
    struct Projection {
        let latitude: Double
        let longitude: Double
        private let metresPerDegree = PlotGeometry.earthRadius * .pi / 180

        init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }

        /// Metres east and north of the reference point.
        func metres(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
            var east = longitude - self.longitude
            if east > 180 { east -= 360 } else if east < -180 { east += 360 }
            return (east * metresPerDegree * cos(self.latitude * .pi / 180), (latitude - self.latitude) * metresPerDegree)
        }
    }

    /// A box in the projection's metres.
    struct Extent {
        var minX = Double.infinity, maxX = -Double.infinity
        var minY = Double.infinity, maxY = -Double.infinity

        var isEmpty: Bool { minX > maxX }

        mutating func include(_ point: (x: Double, y: Double)) {
            minX = min(minX, point.x)
            maxX = max(maxX, point.x)
            minY = min(minY, point.y)
            maxY = max(maxY, point.y)
        }
    }

    /// Fits an extent into a pixel box (y grows downwards in SVG), keeping the aspect ratio and
    /// centring it: `pixelsPerMetre` and the pixel position of a point.
    struct Fit {
        let pixelsPerMetre: Double
        private let originX: Double, originY: Double
        private let centreX: Double, centreY: Double

        /// `extent` inside `x…x+width`, `y…y+height`; a single point (or nothing) at 1 px/m.
        init(_ extent: Extent, x: Double, y: Double, width: Double, height: Double) {
            let spanX = extent.isEmpty ? 0 : extent.maxX - extent.minX
            let spanY = extent.isEmpty ? 0 : extent.maxY - extent.minY
            let scale = min(spanX > 0 ? width / spanX : .infinity, spanY > 0 ? height / spanY : .infinity)
            pixelsPerMetre = scale.isFinite ? scale : 1
            originX = extent.isEmpty ? 0 : (extent.minX + extent.maxX) / 2
            originY = extent.isEmpty ? 0 : (extent.minY + extent.maxY) / 2
            centreX = x + width / 2
            centreY = y + height / 2
        }

        func pixel(_ point: (x: Double, y: Double)) -> (x: Double, y: Double) {
            (centreX + (point.x - originX) * pixelsPerMetre, centreY - (point.y - originY) * pixelsPerMetre)
        }
    }

    /// A round step (1, 2 or 5 × 10ⁿ) that cuts `range` into about `parts` pieces.
    static func niceStep(_ range: Double, parts: Double = 5) -> Double {
        guard range > 0, range.isFinite else { return 1 }
        let raw = range / parts
        let power = pow(10, floor(log10(raw)))
        let fraction = raw / power
        let nice: Double = fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10
        return nice * power
    }

    /// The largest round length (1, 2 or 5 × 10ⁿ metres) not longer than `metres`.
    static func scaleBarLength(atMost metres: Double) -> Double {
        guard metres > 0, metres.isFinite else { return 1 }
        let power = pow(10, floor(log10(metres)))
        let fraction = metres / power
        return (fraction >= 5 ? 5 : fraction >= 2 ? 2 : 1) * power
    }

    /// `1 km`, `200 m`, `2.5 km`.
    static func distanceLabel(_ metres: Double) -> String {
        metres >= 1000 ? "\(number(metres / 1000)) km" : "\(number(metres)) m"
    }

    /// A tick label: no decimals for whole numbers, else up to two.
    static func number(_ value: Double) -> String {
        if value == value.rounded() { return String(Int64(value)) }
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// The speed scale's colours, slow (blue) to fast (red).
    static let speedColours = ["#3b4cc0", "#4f94d4", "#3fb68e", "#9acd32", "#f2c12e", "#f07f2a", "#d7301f"]

    /// The colour class (index into ``speedColours``) of `speed` on a scale from 0 to `top`.
    static func speedClass(_ speed: Double, top: Double) -> Int {
        guard top > 0, speed.isFinite else { return 0 }
        let index = Int((speed / top * Double(speedColours.count)).rounded(.down))
        return min(max(index, 0), speedColours.count - 1)
    }

    /// Values gathered into fixed-width time bins, keeping count, sum, minimum and maximum of each,
    /// so a day of samples takes as much memory as a minute.
    struct Bins {
        let start: Int64
        let end: Int64
        private(set) var count: [Int]
        private(set) var sum: [Double]
        private(set) var low: [Double]
        private(set) var high: [Double]

        /// `columns` bins over `start…end` (ms).
        init(start: Int64, end: Int64, columns: Int) {
            self.start = start
            self.end = max(end, start + 1)
            count = Array(repeating: 0, count: columns)
            sum = Array(repeating: 0, count: columns)
            low = Array(repeating: .infinity, count: columns)
            high = Array(repeating: -.infinity, count: columns)
        }

        var columns: Int { count.count }
        var isEmpty: Bool { !count.contains { $0 > 0 } }

        /// The bin of `time`, or `nil` outside the range.
        func column(of time: Int64) -> Int? {
            guard time >= start, time <= end else { return nil }
            return min(Int(Double(time - start) / Double(end - start) * Double(columns)), columns - 1)
        }

        mutating func add(_ value: Double, at time: Int64) {
            guard value.isFinite, let column = column(of: time) else { return }
            count[column] += 1
            sum[column] += value
            low[column] = min(low[column], value)
            high[column] = max(high[column], value)
        }

        func mean(_ column: Int) -> Double? { count[column] > 0 ? sum[column] / Double(count[column]) : nil }

        /// Smallest and largest value of all bins, or `nil` when empty.
        var range: (low: Double, high: Double)? {
            isEmpty ? nil : (low.min() ?? 0, high.max() ?? 0)
        }
    }
}
