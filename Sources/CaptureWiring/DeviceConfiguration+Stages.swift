package import CaptureConfig
package import CaptureCore
package import CaptureSensors
package import CaptureStorage
package import CaptureSurface
package import CaptureUpload
package import CaptureWeb

/// Which keys go to which stage: each stage makes its settings from its own prefix, with its own
/// validation (``SettingsReader``); a value a stage refuses is a configuration error naming the
/// file and line, the variable or the option it came from.
extension DeviceConfiguration {
    /// `retention.*`, as the store's policy.
    package func retention() throws(DeviceConfigurationError) -> RetentionPolicy {
        try stage { () throws(SettingsError) in try RetentionPolicy(reading: settings(under: "retention")) }
    }

    /// `upload.*`, as the delivery's policy.
    package func delivery() throws(DeviceConfigurationError) -> DeliveryPolicy {
        try stage { () throws(SettingsError) in try DeliveryPolicy(reading: settings(under: "upload")) }
    }

    /// `ride.*` (with `collector.payload_limit`), as the recorder's ride rules.
    package func ride() throws(DeviceConfigurationError) -> RideSettings {
        try stage { () throws(SettingsError) in
            try RideSettings(reading: settings(under: "ride"), payloadLimit: payloadLimit?.bytes)
        }
    }

    /// `surface.*`, as the road surface's classes.
    package func surfaceThresholds() throws(DeviceConfigurationError) -> SurfaceThresholds {
        try stage { () throws(SettingsError) in try SurfaceThresholds(reading: settings(under: "surface")) }
    }

    /// `indicator.*`, as the LEDs the recorder drives.
    package func indicator() throws(DeviceConfigurationError) -> IndicatorSettings {
        try stage { () throws(SettingsError) in try IndicatorSettings(reading: settings(under: "indicator")) }
    }

    /// `button.*`, as the rider's button the recorder reads.
    package func button() throws(DeviceConfigurationError) -> ButtonSettings {
        try stage { () throws(SettingsError) in try ButtonSettings(reading: settings(under: "button")) }
    }

    /// `web.*`, as where `capture serve` listens and its token's file.
    package func web() throws(DeviceConfigurationError) -> WebSettings {
        try stage { () throws(SettingsError) in try WebSettings(reading: settings(under: "web")) }
    }

    /// Every stage's settings made once, so that a value a stage refuses stops a command before
    /// it starts anything (exit 78), as a value of the wrong type does.
    func checkStages() throws(DeviceConfigurationError) {
        _ = try (retention(), delivery(), ride(), surfaceThresholds(), fleet(), indicator(), button(), web())
    }

    private func stage<Settings>(_ make: () throws(SettingsError) -> Settings) throws(DeviceConfigurationError) -> Settings {
        do {
            return try make()
        } catch {
            throw DeviceConfigurationError(error)
        }
    }
}
