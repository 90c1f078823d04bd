public import CaptureCore

/// When finished measurements are delivered without anyone typing `capture upload` (`upload:` in
/// the config file).
public struct DeliveryPolicy: Sendable, Equatable {
    /// Whether `capture stop` (and a recorder that ends) starts a delivery in the background.
    public var automatic: Bool
    /// A pass uploads when at least this many finished measurements wait…
    public var minWaiting: Int
    /// …or when the oldest waiting one has waited longer than this.
    public var maxAge: TimeSpan
    /// Whether to deliver only over a connection that is not metered.
    public var unmeteredOnly: Bool

    /// Creates a policy.
    public init(
        automatic: Bool = false, minWaiting: Int = 1, maxAge: TimeSpan = TimeSpan(seconds: 6 * 3600)!,
        unmeteredOnly: Bool = false
    ) {
        self.automatic = automatic
        self.minWaiting = minWaiting
        self.maxAge = maxAge
        self.unmeteredOnly = unmeteredOnly
    }

    /// Manual delivery only; a `capture sync` pass uploads as soon as one measurement waits.
    public static let standard = DeliveryPolicy()
}

extension DeliveryPolicy {
    /// The policy `upload.*` sets (`settings` scoped to `upload`).
    public init(reading settings: some SettingsReader) throws(SettingsError) {
        let minWaiting = try settings.count("min_waiting")
        guard let minWaiting else { throw settings.invalid("min_waiting", found: "forever") }
        self.init(
            automatic: try settings.bool("auto"), minWaiting: minWaiting, maxAge: try settings.duration("max_age"),
            unmeteredOnly: try settings.bool("unmetered_only"))
    }
}
