public import CaptureCore

/// What may be deleted from the store to keep it small, and when (`retention:` in the config
/// file). Whatever the policy, a measurement nobody has received is deleted only with
/// ``UnsentDrop/oldest``, and then counted as discarded.
public struct RetentionPolicy: Sendable, Equatable, Codable {
    /// What happens to measurements the collector has not confirmed when the store is over budget.
    public enum UnsentDrop: String, Sendable, CaseIterable, Codable {
        /// Never delete them (the default): when nothing else may go, capturing stops (exit 73).
        case never
        /// Delete the oldest first, counting each as discarded.
        case oldest
    }

    /// Days an uploaded measurement is kept after the collector confirmed it; nil keeps it forever.
    public var keepUploadedDays: Int?
    /// The store's size budget; nil for none.
    public var maxStoreSize: ByteSize?
    /// Whether unsent measurements may be dropped to stay within ``maxStoreSize``.
    public var dropUnsent: UnsentDrop

    /// Creates a policy.
    public init(keepUploadedDays: Int? = 30, maxStoreSize: ByteSize? = nil, dropUnsent: UnsentDrop = .never) {
        self.keepUploadedDays = keepUploadedDays
        self.maxStoreSize = maxStoreSize
        self.dropUnsent = dropUnsent
    }

    /// Keep uploaded measurements 30 days, no size budget, never drop unsent ones.
    public static let standard = RetentionPolicy()
}

extension RetentionPolicy {
    /// The policy `retention.*` sets (`settings` scoped to `retention`).
    public init(reading settings: some SettingsReader) throws(SettingsError) {
        self.init(
            keepUploadedDays: try settings.count("keep_uploaded_days"), maxStoreSize: try settings.size("max_store_size"),
            dropUnsent: try settings.choice("drop_unsent"))
    }
}
