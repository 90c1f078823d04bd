/// The lifecycle of one measurement: idle → capturing ⇄ paused → finished.
///
/// A value type with no I/O: every transition takes the time it happens at and returns the events
/// to record, or throws ``LifecycleError`` and leaves the state unchanged. A new track begins at
/// start (track 1) and at every resume.
///
/// ```swift
/// var lifecycle = Lifecycle()
/// let events = try lifecycle.start(at: 1_000, modality: .bicycle)
/// // [LIFECYCLE_START @1000, MODALITY_TYPE_CHANGE "BICYCLE" @1000]
/// ```
public struct Lifecycle: Sendable, Equatable {
    /// Where a measurement stands.
    public enum State: Sendable, Equatable, Hashable {
        /// Nothing started yet.
        case idle
        /// Recording samples into `track` (1-based).
        case capturing(track: Int)
        /// Not recording; `track` is the last track.
        case paused(track: Int)
        /// Stopped for good; `tracks` is the number of tracks.
        case finished(tracks: Int)

        /// The state without its track.
        public var phase: MeasurementState {
            switch self {
            case .idle: .idle
            case .capturing: .capturing
            case .paused: .paused
            case .finished: .finished
            }
        }

        /// The status word used in the database and in JSON output.
        public var name: String { phase.rawValue }

        /// The current (or last) track number, 0 before start.
        public var track: Int {
            switch self {
            case .idle: 0
            case .capturing(let track), .paused(let track): track
            case .finished(let tracks): tracks
            }
        }

        /// Whether the measurement is open, that is capturing or paused.
        public var isOpen: Bool {
            switch self {
            case .capturing, .paused: true
            case .idle, .finished: false
            }
        }
    }

    public private(set) var state: State
    /// The modality in force, `nil` before start.
    public private(set) var modality: Modality?

    /// A lifecycle before start.
    public init() {
        state = .idle
        modality = nil
    }

    /// A lifecycle restored from storage, e.g. after the recorder was restarted.
    public init(restoring state: State, modality: Modality?) {
        self.state = state
        self.modality = modality
    }

    /// Starts the measurement: track 1, LIFECYCLE_START then MODALITY_TYPE_CHANGE at the same time.
    public mutating func start(at time: Int64, modality: Modality) throws(LifecycleError) -> [Event] {
        guard case .idle = state else { throw .alreadyStarted(state: state) }
        state = .capturing(track: 1)
        self.modality = modality
        return [
            Event(timestamp: time, type: .lifecycleStart),
            Event(timestamp: time, type: .modalityTypeChange, value: modality.rawValue),
        ]
    }

    /// Pauses capturing; samples are not recorded until ``resume(at:)``.
    public mutating func pause(at time: Int64) throws(LifecycleError) -> [Event] {
        switch state {
        case .capturing(let track):
            state = .paused(track: track)
            return [Event(timestamp: time, type: .lifecyclePause)]
        case .paused:
            throw .notCapturing(state: state)
        case .idle, .finished:
            throw .notOpen(state: state)
        }
    }

    /// Resumes capturing on a new track.
    public mutating func resume(at time: Int64) throws(LifecycleError) -> [Event] {
        switch state {
        case .paused(let track):
            state = .capturing(track: track + 1)
            return [Event(timestamp: time, type: .lifecycleResume)]
        case .capturing:
            throw .notPaused(state: state)
        case .idle, .finished:
            throw .notOpen(state: state)
        }
    }

    /// Stops the measurement for good, from capturing or paused.
    public mutating func stop(at time: Int64) throws(LifecycleError) -> [Event] {
        switch state {
        case .capturing(let track), .paused(let track):
            state = .finished(tracks: track)
            return [Event(timestamp: time, type: .lifecycleStop)]
        case .idle, .finished:
            throw .notOpen(state: state)
        }
    }

    /// Records a change of modality. The modality already in force is ignored (no event).
    public mutating func changeModality(to newModality: Modality, at time: Int64) throws(LifecycleError)
        -> [Event]
    {
        guard state.isOpen else { throw .notOpen(state: state) }
        guard newModality != modality else { return [] }
        modality = newModality
        return [Event(timestamp: time, type: .modalityTypeChange, value: newModality.rawValue)]
    }

    /// Applies one command. Convenience for drivers that receive commands as values.
    public mutating func apply(_ command: LifecycleCommand, at time: Int64) throws(LifecycleError) -> [Event] {
        switch command {
        case .start(let modality): try start(at: time, modality: modality)
        case .pause: try pause(at: time)
        case .resume: try resume(at: time)
        case .stop: try stop(at: time)
        case .modality(let modality): try changeModality(to: modality, at: time)
        }
    }
}

/// A lifecycle command, as sent by the shell commands or read from a trace.
public enum LifecycleCommand: Sendable, Equatable, Hashable {
    case start(Modality)
    case pause
    case resume
    case stop
    case modality(Modality)

    /// Whether the command begins a track (START or RESUME).
    public var beginsTrack: Bool {
        switch self {
        case .start, .resume: true
        default: false
        }
    }

    /// The verb as a user types it (`pause`, `modality`, …).
    public var verb: String {
        switch self {
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .stop: "stop"
        case .modality: "modality"
        }
    }
}

/// An illegal lifecycle transition. The lifecycle is unchanged when one is thrown.
public enum LifecycleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `start` on a measurement that already started.
    case alreadyStarted(state: Lifecycle.State)
    /// A command that needs an open (capturing or paused) measurement.
    case notOpen(state: Lifecycle.State)
    /// `pause` while already paused.
    case notCapturing(state: Lifecycle.State)
    /// `resume` while capturing.
    case notPaused(state: Lifecycle.State)

    public var description: String {
        switch self {
        case .alreadyStarted: "the measurement has already started"
        case .notOpen: "no measurement is open"
        case .notCapturing: "the measurement is already paused"
        case .notPaused: "the measurement is capturing, not paused"
        }
    }
}
