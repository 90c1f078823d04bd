/// The kind of a lifecycle or modality event.
///
/// Raw values are the Cyface `EventType` enum numbers of the transfer format; note that RESUME (18)
/// comes before PAUSE (19) there.
public enum EventType: Int, Sendable, Codable, CaseIterable, Hashable {
    case lifecycleStart = 16
    case lifecycleStop = 17
    case lifecycleResume = 18
    case lifecyclePause = 19
    case modalityTypeChange = 20

    /// The Cyface name of the event type, as used in JSON output.
    public var name: String {
        switch self {
        case .lifecycleStart: "LIFECYCLE_START"
        case .lifecycleStop: "LIFECYCLE_STOP"
        case .lifecycleResume: "LIFECYCLE_RESUME"
        case .lifecyclePause: "LIFECYCLE_PAUSE"
        case .modalityTypeChange: "MODALITY_TYPE_CHANGE"
        }
    }

    /// The event type with the given Cyface name, or `nil`.
    public init?(name: String) {
        guard let match = EventType.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}

/// One event of a measurement: a lifecycle transition or a modality change.
public struct Event: Sendable, Equatable, Hashable, Codable {
    /// Unix time in milliseconds.
    public var timestamp: Int64
    public var type: EventType
    /// The new modality for `MODALITY_TYPE_CHANGE`, otherwise `nil`.
    public var value: String?

    public init(timestamp: Int64, type: EventType, value: String? = nil) {
        self.timestamp = timestamp
        self.type = type
        self.value = value
    }
}
