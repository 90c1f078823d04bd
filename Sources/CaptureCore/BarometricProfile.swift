/// The altitude profile of a series of pressure samples: start, end, range and climb.
///
/// Heights come from ``BarometricAltitude/altitude(pressure:seaLevelPressure:)``: relative to the
/// first valid sample with the standard sea-level pressure, or absolute (above sea level) with a
/// QNH. Invalid pressures (non-positive, not finite) give no height. The climb is the sum of the
/// rises of the heights smoothed with a moving average over ``smoothingWindow`` samples, so
/// sensor noise does not add up to metres.
public struct BarometricProfile: Sendable, Equatable, Codable {
    /// What the heights are measured from.
    public enum Kind: String, Sendable, Codable {
        /// Metres above the first valid sample.
        case relative
        /// Metres above sea level (a QNH was given).
        case absolute
    }

    /// Samples per moving-average window of the climb (the Cyface window).
    public static let smoothingWindow = 20

    /// `relative` (metres above the first valid sample) or `absolute` (above sea level).
    public var kind: Kind
    /// The sea-level pressure used, hPa.
    public var seaLevelPressure: Double
    /// The first and last sample's pressure, hPa (valid or not).
    public var firstPressure: Double
    public var lastPressure: Double
    /// Heights of the first and last valid samples and their range, metres.
    public var start: Double
    public var end: Double
    public var min: Double
    public var max: Double
    /// Sum of the rises of the smoothed heights, metres.
    public var climb: Double

    /// The profile of `hectopascals` (in time order); `nil` without a valid sample.
    ///
    /// - Parameter qnh: the sea-level pressure of the day, hPa, for absolute heights; `nil` for
    ///   heights relative to the first valid sample.
    public init?(hectopascals: [Double], qnh: Double?) {
        guard let first = hectopascals.first, let last = hectopascals.last,
            let heights = Self.heights(hectopascals: hectopascals, qnh: qnh)
        else { return nil }
        kind = qnh == nil ? .relative : .absolute
        seaLevelPressure = qnh ?? BarometricAltitude.standardSeaLevelPressure
        firstPressure = first
        lastPressure = last
        start = heights.first ?? 0
        end = heights.last ?? 0
        min = heights.min() ?? 0
        max = heights.max() ?? 0
        climb = Self.climb(heights)
    }

    /// The profile with its heights and climb rounded by `round` (`capture show` rounds them to
    /// millimetres); the pressures stay as they are.
    public func roundingHeights(_ round: (Double) -> Double) -> Self {
        var rounded = self
        (rounded.start, rounded.end, rounded.min, rounded.max) = (round(start), round(end), round(min), round(max))
        rounded.climb = round(climb)
        return rounded
    }

    /// The heights of the valid samples of `hectopascals`, metres: above the first valid sample
    /// with the standard sea-level pressure, or above sea level with a `qnh` (hPa); `nil` without
    /// a valid sample.
    public static func heights(hectopascals: [Double], qnh: Double?) -> [Double]? {
        let p0 = qnh ?? BarometricAltitude.standardSeaLevelPressure
        let absolute = hectopascals.compactMap { BarometricAltitude.altitude(pressure: $0, seaLevelPressure: p0) }
        guard let base = absolute.first else { return nil }
        return qnh == nil ? absolute.map { $0 - base } : absolute
    }

    /// Sum of the rises of `heights` smoothed with a trailing moving average of `window` samples
    /// (shorter at the start).
    public static func climb(_ heights: [Double], window: Int = smoothingWindow) -> Double {
        var smoothed: [Double] = []
        smoothed.reserveCapacity(heights.count)
        var sum = 0.0
        for (index, height) in heights.enumerated() {
            sum += height
            if index >= window { sum -= heights[index - window] }
            smoothed.append(sum / Double(Swift.min(index + 1, window)))
        }
        return zip(smoothed, smoothed.dropFirst()).reduce(0) { $0 + Swift.max(0, $1.1 - $1.0) }
    }
}
