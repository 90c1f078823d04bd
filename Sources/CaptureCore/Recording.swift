
/// What one flush commits in a single transaction: the samples captured into one track since the
/// previous flush, then the events that follow them, and the lifecycle state after those events.
public struct Flush: Sendable, Equatable {
    /// The track the samples belong to (the track open when they were captured).
    public var track: Int
    /// Motion samples per sensor, in arrival order.
    public var motion: MotionBuffers
    public var fixes: [Fix]
    public var pressures: [PressureSample]
    /// Events recorded after the samples, in order.
    public var events: [Event]
    /// The lifecycle state once this flush is committed.
    public var state: Lifecycle.State
    /// The modality in force once this flush is committed.
    public var modality: Modality?

    public init(
        track: Int, motion: MotionBuffers = MotionBuffers(), fixes: [Fix] = [],
        pressures: [PressureSample] = [], events: [Event] = [], state: Lifecycle.State, modality: Modality?
    ) {
        self.track = track
        self.motion = motion
        self.fixes = fixes
        self.pressures = pressures
        self.events = events
        self.state = state
        self.modality = modality
    }

    /// Number of samples (motion, fixes and pressure) in the flush.
    public var sampleCount: Int {
        motion.count + fixes.count + pressures.count
    }

    /// Whether the flush carries neither samples nor events.
    public var isEmpty: Bool { sampleCount == 0 && events.isEmpty }

    /// Removes the samples taken at or after `time` and returns them (same track, no events).
    public mutating func split(from time: Int64) -> Flush {
        var later = Flush(track: track, state: state, modality: modality)
        for sensor in MotionSensor.allCases {
            later.motion[sensor] = motion[sensor].filter { $0.timestamp >= time }
            motion[sensor].removeAll { $0.timestamp >= time }
        }
        later.fixes = fixes.filter { $0.timestamp >= time }
        fixes.removeAll { $0.timestamp >= time }
        later.pressures = pressures.filter { $0.timestamp >= time }
        pressures.removeAll { $0.timestamp >= time }
        return later
    }
}

/// Motion samples of one flush, one array per sensor (a fixed struct rather than a dictionary:
/// this is on the per-sample path).
public struct MotionBuffers: Sendable, Equatable {
    public var accelerometer: [MotionSample] = []
    public var gyroscope: [MotionSample] = []
    public var magnetometer: [MotionSample] = []

    public init() {}

    public subscript(sensor: MotionSensor) -> [MotionSample] {
        get {
            switch sensor {
            case .accelerometer: accelerometer
            case .gyroscope: gyroscope
            case .magnetometer: magnetometer
            }
        }
        _modify {
            switch sensor {
            case .accelerometer: yield &accelerometer
            case .gyroscope: yield &gyroscope
            case .magnetometer: yield &magnetometer
            }
        }
        set {
            switch sensor {
            case .accelerometer: accelerometer = newValue
            case .gyroscope: gyroscope = newValue
            case .magnetometer: magnetometer = newValue
            }
        }
    }

    /// Samples of all three sensors.
    public var count: Int { accelerometer.count + gyroscope.count + magnetometer.count }
}

/// The recording engine: a lifecycle plus the samples captured since the last flush.
///
/// Pure and deterministic: it never reads a clock. The driver (the live recorder or a replay)
/// feeds samples, applies commands at the times they happen, and asks for a flush once per flush
/// interval. Samples that arrive while the measurement is not capturing are dropped and counted.
public struct Recording: Sendable {
    public private(set) var lifecycle: Lifecycle
    private var pending: Flush
    /// Samples dropped because the measurement was not capturing when they arrived.
    public private(set) var droppedWhileNotCapturing: Int = 0
    /// Samples accepted (captured) since the engine was created.
    public private(set) var accepted: Int = 0

    /// An engine for a new measurement (idle until `start`).
    public init() {
        self.init(lifecycle: Lifecycle())
    }

    /// An engine continuing a restored lifecycle.
    public init(lifecycle: Lifecycle) {
        self.lifecycle = lifecycle
        pending = Flush(track: lifecycle.state.track, state: lifecycle.state, modality: lifecycle.modality)
    }

    /// Number of samples waiting for the next flush.
    public var pendingSamples: Int { pending.sampleCount }

    /// A flush with no samples and no events, at the state the next flush commits: a record
    /// that carries only what is applied with it (a count).
    public var bareFlush: Flush { Flush(track: pending.track, state: pending.state, modality: pending.modality) }

    /// The fixes waiting for the next flush, in the order taken.
    public var pendingFixes: [Fix] { pending.fixes }

    /// Samples rejected because the store or the transfer format cannot hold them (see
    /// ``storable(_:)``): a broken device costs those samples, never the flush around them.
    public private(set) var rejectedUnstorable: Int = 0

    /// Takes one sample. Returns `false` (and counts it) if the measurement is not capturing or
    /// the sample cannot be stored.
    @discardableResult
    public mutating func ingest(_ sample: Sample) -> Bool {
        guard case .capturing = lifecycle.state else {
            droppedWhileNotCapturing += 1
            return false
        }
        guard let sample = Self.storable(sample) else {
            rejectedUnstorable += 1
            return false
        }
        accepted += 1
        switch sample {
        case .motion(let sensor, let value): pending.motion[sensor].append(value)
        case .fix(let fix): pending.fixes.append(fix)
        case .pressure(let pressure): pending.pressures.append(pressure)
        }
        return true
    }

    /// The sample as it can be stored, or `nil` when it cannot: motion values must be finite and,
    /// scaled to the Cyface units, stay within ±2³⁰ (so that every delta fits 32 bits: over a
    /// million m/s² or rad/s, ten million µT); pressure finite and positive; fixes with a finite
    /// latitude in −90…90 and longitude in −180…180. Unknown-or-invalid optional fix fields
    /// (NaN, ±∞) become `nil`.
    public static func storable(_ sample: Sample) -> Sample? {
        switch sample {
        case .motion(let sensor, let value):
            let limit = 1_073_741_824.0 / sensor.transferScale
            guard abs(value.x) < limit, abs(value.y) < limit, abs(value.z) < limit else { return nil }
            return sample
        case .pressure(let pressure):
            guard pressure.hectopascals.isFinite, pressure.hectopascals > 0 else { return nil }
            return sample
        case .fix(var fix):
            guard abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 else { return nil }
            func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
            fix.altitude = finite(fix.altitude)
            fix.horizontalAccuracy = finite(fix.horizontalAccuracy)
            fix.verticalAccuracy = finite(fix.verticalAccuracy)
            fix.speed = finite(fix.speed)
            fix.course = finite(fix.course)
            return .fix(fix)
        }
    }

    /// Applies a lifecycle command and returns the flush that must be committed before anything
    /// else: the samples captured before the command, then its events.
    ///
    /// On an illegal transition it throws and nothing changes, pending samples included.
    public mutating func apply(_ command: LifecycleCommand, at time: Int64) throws(LifecycleError) -> Flush {
        let events = try lifecycle.apply(command, at: time)
        pending.events.append(contentsOf: events)
        return takeFlush()
    }

    /// Drops the pending samples taken at or after `time` (a ride's still tail), keeping those
    /// before it for the next flush. Returns what was dropped.
    @discardableResult
    public mutating func dropPending(from time: Int64) -> Flush {
        pending.split(from: time)
    }

    /// Hands out everything pending (possibly an empty flush) and starts a new one.
    public mutating func takeFlush() -> Flush {
        var flush = pending
        flush.state = lifecycle.state
        flush.modality = lifecycle.modality
        pending = Flush(track: lifecycle.state.track, state: lifecycle.state, modality: lifecycle.modality)
        return flush
    }
}
