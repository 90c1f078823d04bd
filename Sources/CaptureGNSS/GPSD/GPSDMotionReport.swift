package import CaptureCore

/// `IMU` or `ATT`: the inertial and magnetic readings of a receiver with its own sensors (u-blox
/// dead-reckoning modules report UBX-ESF as `IMU`; compasses and attitude sensors as `ATT`).
///
/// Only the fields capture records are decoded: the three axes of the accelerometer (`acc_x`…,
/// m/s²), the gyroscope (`gyro_x`…, gpsd's deg/s) and the magnetometer (`mag_x`…, whose unit
/// gpsd does not state: passed on as the device gives it), and what places the report in time.
/// Attitude angles (`heading`, `pitch`, `roll`, `yaw`) are not motion samples and are left out.
package struct GPSDMotionReport: Sendable, Equatable {
    /// `IMU` or `ATT`.
    package var className: String
    /// The device the report is about.
    package var device: String?
    /// The receiver message it was decoded from, e.g. `UBX-ESF-RAW` (gpsd's `msg`).
    package var message: String?
    /// `time` as Unix milliseconds, when gpsd knows it.
    package var timestamp: Int64?
    /// `timeTag`: the sensor's own time tag (for u-blox ESF, the message's tag in its units).
    package var timeTag: UInt32?
    /// `acc_x`, `acc_y`, `acc_z`, m/s²; `nil` unless all three are present.
    package var acceleration: [Double]?
    /// `gyro_x`, `gyro_y`, `gyro_z` in gpsd's deg/s; `nil` unless all three are present.
    package var angularRate: [Double]?
    /// `mag_x`, `mag_y`, `mag_z`; `nil` unless all three are present.
    package var magneticField: [Double]?
    /// Sensors with only some of their axes present (left out).
    package var incompleteSensors: Int

    /// Whether it carries any reading capture records.
    package var hasMotion: Bool { acceleration != nil || angularRate != nil || magneticField != nil }

    /// The readings in capture's units (gyroscope in rad/s), all at `timestamp`.
    package func samples(at timestamp: Int64) -> [(MotionSensor, MotionSample)] {
        var result: [(MotionSensor, MotionSample)] = []
        if let a = acceleration { result.append((.accelerometer, MotionSample(timestamp: timestamp, x: a[0], y: a[1], z: a[2]))) }
        if let g = angularRate {
            let radians = g.map { $0 * .pi / 180 }
            result.append((.gyroscope, MotionSample(timestamp: timestamp, x: radians[0], y: radians[1], z: radians[2])))
        }
        if let m = magneticField { result.append((.magnetometer, MotionSample(timestamp: timestamp, x: m[0], y: m[1], z: m[2]))) }
        return result
    }

    init(_ o: GPSDObject) throws(GPSDParseError) {
        className = o.className
        device = try o.string("device")
        message = try o.string("msg")
        timestamp = try o.time().unixMilliseconds
        if let tag = try o.double("timeTag") {
            guard let exact = UInt32(exactly: tag) else { throw .invalidField(className: o.className, field: "timeTag") }
            timeTag = exact
        }
        incompleteSensors = 0
        func axes(_ prefix: String) throws(GPSDParseError) -> [Double]? {
            var values: [Double] = []
            for axis in ["x", "y", "z"] {
                if let value = try o.double(prefix + axis) {
                    guard value.isFinite else { throw .invalidField(className: o.className, field: prefix + axis) }
                    values.append(value)
                }
            }
            if values.count == 3 { return values }
            if !values.isEmpty { incompleteSensors += 1 }
            return nil
        }
        acceleration = try axes("acc_")
        angularRate = try axes("gyro_")
        magneticField = try axes("mag_")
    }
}
