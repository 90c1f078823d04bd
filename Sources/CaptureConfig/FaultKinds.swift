package import CaptureCore

extension DeviceConfigurationError: KindedError {
    /// A bad option is a bad argument like every other; the file and the environment are the
    /// configuration.
    package var faultKind: FaultKind { place.hasPrefix("-") ? .badArgument : .configuration }
}

extension CollectorSettingsError: KindedError {
    package var faultKind: FaultKind { .configuration }
}
