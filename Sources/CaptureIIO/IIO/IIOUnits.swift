package import CaptureCore

/// Conversions from IIO's units (after `(raw + offset) × scale`) to the units this tool records.
///
/// IIO (K-ABI): accelerometer m/s², gyroscope rad/s, magnetometer **gauss**, pressure
/// **kilopascal**, temperature **milli**-degrees Celsius. Recorded: m/s², rad/s, µT, hPa.
package enum IIOUnits {
    /// 1 gauss = 100 µT.
    package static let microteslaPerGauss = 100.0
    /// 1 kPa = 10 hPa.
    package static let hectopascalsPerKilopascal = 10.0

    /// A motion channel value in the sensor's recorded unit (see ``MotionSensor/unit``).
    package static func recordedValue(_ iioValue: Double, for sensor: MotionSensor) -> Double {
        switch sensor {
        case .accelerometer, .gyroscope: iioValue
        case .magnetometer: iioValue * microteslaPerGauss
        }
    }

    /// Gauss → µT.
    package static func microtesla(fromGauss gauss: Double) -> Double { gauss * microteslaPerGauss }

    /// kPa → hPa.
    package static func hectopascals(fromKilopascals kilopascals: Double) -> Double {
        kilopascals * hectopascalsPerKilopascal
    }

    /// m°C → °C.
    package static func celsius(fromMillidegrees millidegrees: Double) -> Double { millidegrees / 1000 }

    /// An IIO timestamp (ns) → Unix ms, rounding down. Only meaningful when the device's
    /// `current_timestamp_clock` is `realtime`.
    package static func unixMilliseconds(fromNanoseconds nanoseconds: Int64) -> Int64 {
        let quotient = nanoseconds / 1_000_000
        return nanoseconds % 1_000_000 < 0 ? quotient - 1 : quotient
    }
}

/// The clock behind IIO timestamps, from `current_timestamp_clock`.
package enum IIOTimestampClock: String, Sendable, Hashable, CaseIterable {
    /// `CLOCK_REALTIME`: Unix time.
    case realtime
    /// `CLOCK_MONOTONIC`: time since boot, not counting suspend.
    case monotonic
    /// `CLOCK_MONOTONIC_RAW`.
    case monotonicRaw = "monotonic_raw"
    /// `CLOCK_REALTIME_COARSE`: Unix time, coarse.
    case realtimeCoarse = "realtime_coarse"
    /// `CLOCK_MONOTONIC_COARSE`.
    case monotonicCoarse = "monotonic_coarse"
    /// `CLOCK_BOOTTIME`: time since boot, counting suspend.
    case boottime
    /// `CLOCK_TAI`: international atomic time.
    case tai

    /// Parses the attribute text (trimmed); `nil` for a clock this tool does not know.
    package init?(parsing text: String) {
        self.init(rawValue: IIOSysfs.trim(text))
    }

    /// Whether timestamps are Unix time (the realtime clocks) rather than time since boot.
    package var isWallClock: Bool { self == .realtime || self == .realtimeCoarse }
}
