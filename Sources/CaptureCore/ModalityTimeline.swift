extension Modality {
    /// The modality in force at `time` (Unix ms): the value of the last `MODALITY_TYPE_CHANGE` at
    /// or before it, else `initial` (the measurement's starting modality).
    ///
    /// Stored spellings are returned as they are, so a value this version does not know still
    /// prints. `events` must be in time order, as the store returns them.
    ///
    /// ```swift
    /// Modality.spelling(at: track.startTime, events: events, initial: record.modality)
    /// ```
    public static func spelling(at time: Int64, events: [Event], initial: String) -> String {
        events.last { $0.type == .modalityTypeChange && $0.timestamp <= time }?.value ?? initial
    }
}
