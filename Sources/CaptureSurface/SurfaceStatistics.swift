/// Count, mean and M2 (the sum of squared deviations from the mean) of a stream of values:
/// Welford's update for one value, Chan et al.'s for two sets, so windows merge exactly into
/// cells and rides into maps without keeping a single sample.
///
/// ```swift
/// var a = SurfaceStatistics(), b = SurfaceStatistics()
/// for x in [1.0, 2, 3] { a.add(x) }
/// for x in [4.0, 5] { b.add(x) }
/// a.merge(b)            // count 5, mean 3, m2 10: as if all five were added to one
/// ```
package struct SurfaceStatistics: Sendable, Equatable, Codable {
    /// Values added.
    package private(set) var count: Int
    /// Their mean (0 for none).
    package private(set) var mean: Double
    /// Σ (x − mean)² (0 for fewer than two values).
    package private(set) var m2: Double

    /// No values.
    package init() {
        count = 0
        mean = 0
        m2 = 0
    }

    /// Statistics given by their parts (read back from a file, say).
    package init(count: Int, mean: Double, m2: Double) {
        self.count = count
        self.mean = mean
        self.m2 = m2
    }

    /// Adds one value (Welford 1962).
    package mutating func add(_ value: Double) {
        count += 1
        let delta = value - mean
        mean += delta / Double(count)
        m2 += delta * (value - mean)
    }

    /// Adds every value `other` stands for (Chan, Golub and LeVeque 1979): exact, in any order.
    package mutating func merge(_ other: SurfaceStatistics) {
        guard other.count > 0 else { return }
        guard count > 0 else {
            self = other
            return
        }
        let total = count + other.count
        let delta = other.mean - mean
        mean += delta * Double(other.count) / Double(total)
        m2 += other.m2 + delta * delta * Double(count) * Double(other.count) / Double(total)
        count = total
    }

    /// The population variance, M2 / count (m²/s⁴ for accelerations); 0 for no values.
    package var variance: Double { count > 0 ? m2 / Double(count) : 0 }

    /// √variance.
    package var standardDeviation: Double { variance.squareRoot() }
}
