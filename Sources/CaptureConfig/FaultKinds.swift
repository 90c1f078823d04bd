public import CaptureCore

extension DeviceConfigurationError: KindedError {
    /// A bad option is a bad argument like every other; the file and the environment are the
    /// configuration.
    public var faultKind: FaultKind { place.hasPrefix("-") ? .badArgument : .configuration }
}

extension CollectorSettingsError: KindedError {
    public var faultKind: FaultKind { .configuration }
}
