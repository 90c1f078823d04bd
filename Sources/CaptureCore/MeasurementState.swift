/// Where a measurement stands: the one word the lifecycle, the database's `status` column,
/// `capture status`, `capture list` and their `--json` output all use. The raw values are those
/// words.
///
/// The lifecycle's own state (``Lifecycle/State``) carries the track as well; its
/// ``Lifecycle/State/phase`` is one of these. Not every word is everywhere: the database stores
/// ``storedStates`` only, and ``interrupted`` is what a reader sees of an open measurement whose
/// recorder is gone.
public enum MeasurementState: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Nothing begun (no measurement is open).
    case idle
    /// Open, recording samples.
    case capturing
    /// Open, not recording until resumed.
    case paused
    /// Stopped for good.
    case finished
    /// Open, but no recorder holds it: `resume` or `stop` takes it on.
    case interrupted

    /// The states a measurement is stored in.
    public static let storedStates: [MeasurementState] = [.capturing, .paused, .finished]

    /// Whether a measurement in this state is open (capturing, paused or interrupted).
    public var isOpen: Bool {
        switch self {
        case .capturing, .paused, .interrupted: true
        case .idle, .finished: false
        }
    }

    /// The lifecycle state of a stored measurement in this state with `tracks` tracks; `nil` for
    /// a state that is never stored.
    public func lifecycleState(tracks: Int) -> Lifecycle.State? {
        switch self {
        case .capturing: .capturing(track: tracks)
        case .paused: .paused(track: tracks)
        case .finished: .finished(tracks: tracks)
        case .idle, .interrupted: nil
        }
    }

    /// What a reader is told of stored measurement `id` in this state: the one rule `show`,
    /// `list` and `status` share. An open measurement is `capturing` or `paused` only while a
    /// running recorder says it holds it (``HeldMeasurement``), and then as that recorder has it;
    /// otherwise it is ``interrupted``: no recorder runs, one is starting and has not taken
    /// it on yet (it may continue it or finish it), or one holds another measurement.
    ///
    /// ```swift
    /// MeasurementState.capturing.seen(id: 3, held: nil)                          // .interrupted
    /// MeasurementState.capturing.seen(id: 3, held: HeldMeasurement(id: 3, state: .paused)) // .paused
    /// ```
    public func seen(id: Int64, held: HeldMeasurement?) -> MeasurementState {
        guard isOpen else { return self }
        guard let held, held.id == id, held.state != .idle else { return .interrupted }
        return held.state
    }
}

/// The measurement a running recorder holds and where it stands, as that recorder itself says
/// (on its control socket): what makes an open measurement more than ``MeasurementState/interrupted``.
public struct HeldMeasurement: Sendable, Equatable {
    /// The measurement's id.
    public var id: Int64
    /// Its state in the recorder (it may be ahead of the database: a pause waiting in the flush log).
    public var state: MeasurementState

    public init(id: Int64, state: MeasurementState) {
        self.id = id
        self.state = state
    }
}
