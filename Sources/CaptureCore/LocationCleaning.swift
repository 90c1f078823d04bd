/// Decides which GNSS fixes are good enough to count towards distance and speed statistics.
///
/// This is Android's `DefaultLocationCleaning` (Cyface protocol §4): a fix is clean iff
///
///     speed > 1.0 m/s  AND  speed < 100.0 m/s  AND  horizontal accuracy < 20.0 m
///
/// All three bounds are strict. A fix whose speed or horizontal accuracy is unknown (`nil`) or not a
/// number is not clean, because it cannot be shown to satisfy the rule. Cleaning never removes data:
/// every fix is still stored and uploaded raw; only derived figures skip unclean fixes.
///
/// ```swift
/// let fix = Fix(timestamp: 0, latitude: 51.05, longitude: 13.74, horizontalAccuracy: 5, speed: 4.2)
/// LocationCleaning.isClean(fix)  // true
/// ```
public enum LocationCleaning {
    /// Exclusive lower bound on speed, m/s. Slower fixes are mostly a standing receiver's jitter.
    public static let minimumSpeed = 1.0
    /// Exclusive upper bound on speed, m/s (360 km/h). Faster fixes are receiver glitches.
    public static let maximumSpeed = 100.0
    /// Exclusive upper bound on horizontal accuracy, metres.
    public static let maximumHorizontalAccuracy = 20.0

    /// Whether `fix` passes the cleaning rule (see ``LocationCleaning``).
    ///
    /// - Returns: `true` iff the speed is known and strictly between ``minimumSpeed`` and
    ///   ``maximumSpeed``, and the horizontal accuracy is known and strictly below
    ///   ``maximumHorizontalAccuracy``.
    public static func isClean(_ fix: Fix) -> Bool {
        guard let speed = fix.speed, let accuracy = fix.horizontalAccuracy else { return false }
        // Written as positive comparisons so that NaN fails every one of them.
        return speed > minimumSpeed && speed < maximumSpeed && accuracy < maximumHorizontalAccuracy
    }
}
