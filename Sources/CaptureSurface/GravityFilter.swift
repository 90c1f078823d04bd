import Foundation

/// The vertical acceleration of a fixed mount, whatever its orientation: gravity is estimated
/// from the accelerometer itself by a low-pass filter, each sample is projected on the
/// estimate's direction, and the estimate's magnitude is taken off.
///
/// A vehicle's own accelerations (braking, turns, climbs) last seconds; road vibration lasts
/// tenths of a second. A first-order low-pass with a time constant of ``timeConstant`` keeps the
/// first (the direction of "down" as the mount sees it) and drops the second. Until a time
/// constant's worth of samples has arrived the estimate is their plain mean, so the first
/// samples do not start from an arbitrary guess; a gap longer than ``restartGap`` (a pause)
/// starts the estimate again.
package struct GravityFilter: Sendable {
    /// Seconds; long against vibration (≥ 2 Hz), short against a change of slope.
    package static let timeConstant = 4.0
    /// A gap between samples that starts the estimate again, in ms.
    package static let restartGap: Int64 = 1_000

    private var gravity = (x: 0.0, y: 0.0, z: 0.0)
    private var samples = 0
    private var last: Int64?
    /// The sum of every raw sample, for the mount's tilt.
    private var total = (x: 0.0, y: 0.0, z: 0.0)
    private var totalCount = 0

    package init() {}

    /// The vertical acceleration of a sample at `time` (ms) reading (x, y, z) m/s², gravity
    /// removed: positive up.
    package mutating func vertical(time: Int64, x: Double, y: Double, z: Double) -> Double {
        if let last, time - last > Self.restartGap || time < last { samples = 0 }
        let dt = last.map { Double(max(time - $0, 0)) / 1000 } ?? 0
        last = time
        samples += 1
        let alpha = max(dt / (Self.timeConstant + dt), 1 / Double(samples))
        gravity.x += alpha * (x - gravity.x)
        gravity.y += alpha * (y - gravity.y)
        gravity.z += alpha * (z - gravity.z)
        total.x += x
        total.y += y
        total.z += z
        totalCount += 1
        let magnitude = (gravity.x * gravity.x + gravity.y * gravity.y + gravity.z * gravity.z).squareRoot()
        guard magnitude > 0 else { return 0 }
        return (x * gravity.x + y * gravity.y + z * gravity.z) / magnitude - magnitude
    }

    /// The angle between the device's z axis and "up" over the whole ride, in degrees (0: the
    /// device lies flat, z up; 90: on its side); `nil` before any sample.
    package var tilt: Double? {
        let magnitude = (total.x * total.x + total.y * total.y + total.z * total.z).squareRoot()
        guard totalCount > 0, magnitude > 0 else { return nil }
        return acos(max(-1, min(1, total.z / magnitude))) * 180 / .pi
    }

    /// The mean of every sample, m/s²: gravity as the mount saw it.
    package var meanGravity: Double? {
        guard totalCount > 0 else { return nil }
        let n = Double(totalCount)
        return ((total.x * total.x + total.y * total.y + total.z * total.z).squareRoot()) / n
    }
}
