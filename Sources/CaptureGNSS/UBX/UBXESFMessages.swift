package import CaptureCore

/// One 32-bit ESF data word: a 24-bit field (bits 0…23) and a 6-bit data type (bits 24…29).
///
/// Data types and scaling: u-blox 8 / M8 protocol specification (UBX-13003221), section
/// "ESF Measurement Data" (sensor data types table); the same table is in the ZED-F9R/F9K
/// integration manuals ("Definition of data types"). The IMU types are:
/// 5 z-gyro, 13 y-gyro, 14 x-gyro (deg/s · 2⁻¹², signed); 16 x-, 17 y-, 18 z-accelerometer
/// (m/s² · 2⁻¹⁰, signed); 12 gyroscope temperature (°C · 10⁻², signed). Wheel ticks (6…10) and
/// speed (11) are not motion samples and are left alone.
package struct UBXSensorDatum: Sendable, Equatable {
    /// The raw word.
    package var word: UInt32

    /// Wraps a raw data word.
    package init(_ word: UInt32) {
        self.word = word
    }

    /// The data type (0…63).
    package var type: UInt8 { UInt8(word >> 24 & 0x3F) }

    /// The 24-bit field as a two's-complement signed value.
    package var signedField: Int32 { Int32(bitPattern: word << 8) >> 8 }

    /// The axis and value in capture's units, for accelerometer and gyroscope types: m/s², and
    /// rad/s (the specification's deg/s converted); `nil` for other types.
    package var motion: (sensor: MotionSensor, axis: Int, value: Double)? {
        let raw = Double(signedField)
        let gyro = raw / 4096 * .pi / 180
        let accel = raw / 1024
        switch type {
        case 14: return (.gyroscope, 0, gyro)
        case 13: return (.gyroscope, 1, gyro)
        case 5: return (.gyroscope, 2, gyro)
        case 16: return (.accelerometer, 0, accel)
        case 17: return (.accelerometer, 1, accel)
        case 18: return (.accelerometer, 2, accel)
        default: return nil
        }
    }
}

/// ESF-RAW: raw inertial sensor samples, each with its sensor time tag.
package struct UBXESFRaw: Sendable, Equatable {
    /// One sample of one axis.
    package struct Block: Sendable, Equatable {
        /// The sample.
        package var data: UBXSensorDatum
        /// Sensor time tag (ticks of the sensor clock).
        package var sensorTimeTag: UInt32
    }

    /// The samples, in the message's order.
    package var blocks: [Block]
}

/// ESF-MEAS: sensor measurements sharing one time tag.
package struct UBXESFMeas: Sendable, Equatable {
    /// Time tag of the measurements (ms for a module's own IMU).
    package var timeTag: UInt32
    /// Identification number of the data provider.
    package var providerID: UInt16
    /// The measurements.
    package var data: [UBXSensorDatum]
}
