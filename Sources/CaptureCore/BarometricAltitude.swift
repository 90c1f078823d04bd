import Foundation

/// Altitude from air pressure with the international barometric formula, as Android's
/// `SensorManager.getAltitude` approximates it: `h = 44330 × (1 − (p / p0)^(1 / 5.255))`.
///
/// Absolute results depend on the sea-level pressure `p0` of the day (weather moves it by tens
/// of hPa, about 8.3 m per hPa near sea level), so use a local QNH when one is known. Differences
/// over minutes are reliable, which is what ``relativeAltitude(pressure:reference:)`` is for.
public enum BarometricAltitude {
    /// The standard atmosphere at sea level, hPa.
    public static let standardSeaLevelPressure = 1013.25

    /// Metres above the level where the pressure is `seaLevelPressure`; `nil` for non-positive or
    /// non-finite pressures. Both pressures in hPa.
    ///
    /// 1000 hPa → 110.9 m, 950 → 540.4 m, 900 → 988.6 m, 850 → 1457.5 m.
    public static func altitude(pressure: Double, seaLevelPressure: Double = standardSeaLevelPressure) -> Double? {
        guard pressure > 0, pressure.isFinite, seaLevelPressure > 0, seaLevelPressure.isFinite else { return nil }
        return 44330 * (1 - pow(pressure / seaLevelPressure, 1 / 5.255))
    }

    /// Metres climbed from where the pressure was `reference` to where it is `pressure` (hPa),
    /// i.e. `h(pressure) − h(reference)` with the standard `p0`.
    public static func relativeAltitude(pressure: Double, reference: Double) -> Double? {
        guard let here = altitude(pressure: pressure), let there = altitude(pressure: reference) else { return nil }
        return here - there
    }
}

/// Relative altitude since the first sample of a recording, as iOS's `relativeAltitude` reports it.
public struct RelativeAltitudeTracker: Sendable, Equatable {
    /// The first valid pressure seen, hPa.
    public private(set) var reference: Double?

    /// Starts without a reference; the first valid sample becomes it.
    public init(reference: Double? = nil) {
        self.reference = reference
    }

    /// Metres above the first sample (0 for the first); `nil` for an invalid pressure.
    public mutating func relativeAltitude(for sample: PressureSample) -> Double? {
        guard BarometricAltitude.altitude(pressure: sample.hectopascals) != nil else { return nil }
        let reference = self.reference ?? sample.hectopascals
        self.reference = reference
        return BarometricAltitude.relativeAltitude(pressure: sample.hectopascals, reference: reference)
    }
}
