package import CaptureCore

/// ESF-INS (0x10 0x15): a dead-reckoning module's vehicle dynamics, the angular rates and
/// accelerations in the vehicle frame after the module's own compensation (of its sensors'
/// biases and mounting), one per navigation or priority epoch.
///
/// Layout (36 bytes) per the u-blox 8 / M8 protocol specification (UBX-13003221) and the
/// ZED-F9R interface description, "UBX-ESF-INS": bitfield0 (X4: version in bits 0…7, then
/// xAngRateValid, yAngRateValid, zAngRateValid, xAccelValid, yAccelValid, zAccelValid in bits
/// 8…13), 4 reserved bytes, iTOW (U4, ms), x/y/zAngRate (I4, 1e-3 deg/s), x/y/zAccel (I4,
/// 1e-2 m/s²).
///
/// Not stored: capture keeps the module's raw IMU readings (ESF-RAW) as its motion samples,
/// and these are a product of the same readings in another frame; they are counted with the
/// stream's unused input (``GNSSReceiverStats/vehicleDynamics``).
package struct UBXESFINS: Sendable, Equatable {
    /// GPS time of week, ms.
    package var iTOW: UInt32
    /// Angular rate about x, y, z of the vehicle frame, rad/s (the specification's deg/s
    /// converted); `nil` where the module marks the axis not valid.
    package var angularRate: [Double?]
    /// Acceleration along x, y, z of the vehicle frame, m/s²; `nil` where not valid.
    package var acceleration: [Double?]

    /// Reads a payload of at least 36 bytes.
    init(_ p: UBXPayload) {
        let valid = p.u32(0)
        iTOW = p.u32(8)
        angularRate = (0..<3).map { axis in
            valid & (1 << (8 + UInt32(axis))) != 0 ? Double(p.i32(12 + 4 * axis)) * 1e-3 * .pi / 180 : nil
        }
        acceleration = (0..<3).map { axis in
            valid & (1 << (11 + UInt32(axis))) != 0 ? Double(p.i32(24 + 4 * axis)) * 1e-2 : nil
        }
    }
}
