public import CaptureCore

/// Java's `Math.round(double)`: round half up, towards +∞, as the Cyface reference serializer
/// does (spec §1.3).
///
/// `JavaRound.round(2.5) == 3`, `JavaRound.round(-2.5) == -2` and
/// `JavaRound.round(0.49999999999999994) == 0`. Swift's `.rounded()` rounds half away from zero and
/// `floor(x + 0.5)` is wrong for the largest double below 0.5, so neither is used.
///
/// Unlike Java, which returns 0 for NaN and saturates on overflow, these functions throw.
public enum JavaRound {
    /// Rounds `x` half up to an `Int64`.
    ///
    /// - Throws: ``CyfaceError/Kind/notFinite`` for NaN or ±∞, ``CyfaceError/Kind/valueOutOfRange``
    ///   when the result does not fit an `Int64`.
    @inlinable
    public static func round(_ x: Double) throws(CyfaceError) -> Int64 {
        guard x.isFinite else { throw CyfaceError(.notFinite, "cannot round \(x)") }
        // Below 2^52 in magnitude, truncating through Int64 and stepping down for negatives is the
        // exact floor and avoids a libm call per value (this is on the per-sample path).
        if abs(x) < 4_503_599_627_370_496.0 {
            var truncated = Int64(x)
            if Double(truncated) > x { truncated -= 1 }
            return x - Double(truncated) >= 0.5 ? truncated + 1 : truncated
        }
        let floor = x.rounded(.down)
        // x - floor is exact for every finite double, so the comparison decides exactly.
        let rounded = x - floor >= 0.5 ? floor + 1 : floor
        // 2^63 is exactly representable; every double below it converts without trapping.
        guard rounded >= -9_223_372_036_854_775_808.0, rounded < 9_223_372_036_854_775_808.0 else {
            throw CyfaceError(.valueOutOfRange, "\(x) rounds outside the 64-bit integer range")
        }
        return Int64(rounded)
    }

    /// Scales `value` by `factor` (in double precision), rounds half up and checks that the result
    /// fits an `Int32` column, as `Formatter.java` does for coordinates and sensor values.
    ///
    /// - Parameter what: names the value in the error message, e.g. `"latitude"`.
    /// - Throws: ``CyfaceError/Kind/notFinite`` or ``CyfaceError/Kind/valueOutOfRange``.
    @inlinable
    public static func scaledInt32(_ value: Double, by factor: Double, what: @autoclosure () -> String)
        throws(CyfaceError) -> Int64
    {
        let scaled: Int64
        do {
            scaled = try round(value * factor)
        } catch {
            throw CyfaceError(error.kind, "\(what()) \(value) × \(factor): \(error.detail)")
        }
        guard scaled >= Int64(Int32.min), scaled <= Int64(Int32.max) else {
            throw CyfaceError(.valueOutOfRange, "\(what()) \(value) × \(factor) = \(scaled) does not fit 32 bits")
        }
        return scaled
    }
}
