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

    /// What a reader is told of a stored measurement: an open one is ``interrupted`` unless a
    /// recorder holds it.
    public func seen(recorderRunning: Bool) -> MeasurementState {
        isOpen && !recorderRunning ? .interrupted : self
    }
}
