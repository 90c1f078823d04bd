package import CaptureCore
import Glibc

/// A source of samples: a device, a receiver, or a trace played at its own pace.
///
/// One way in for every kind: ``run(into:)`` blocks on its own thread and hands whatever it reads
/// to the ``SampleSink`` it is given, until the source ends (returns), fails (throws), or the
/// sink's ``SampleSink/stop`` signal is given. What a kind adds beyond that (lifecycle marks, a
/// modality to begin with, continuing after a crash) are requirements with defaults, so that the
/// recorder asks every source the same questions and never needs to know its type.
///
/// ```swift
/// struct Metronome: SampleSource {
///     let name = "metronome"
///     func run(into sink: any SampleSink) throws {
///         var time = WallClock.now()
///         while sink.stop.sleep(until: time + 100) {
///             time += 100
///             sink.deliver([.pressure(PressureSample(timestamp: time, hectopascals: 1013.25))])
///         }
///     }
/// }
/// ```
package protocol SampleSource: Sendable {
    /// What the source is, for `capture status` (`trace:ride.trace`), stored with the measurement
    /// so that a recovered recorder starts the same source again.
    var name: String { get }
    /// Which clock its times are on (the host's unless it says otherwise).
    var clock: SourceClock { get }

    /// Reads until the source ends, fails, or `sink.stop` is given, handing the samples of each
    /// read to `sink` at once and in order (one call per read, not per sample: the recorder's
    /// inbox is taken once per call).
    func run(into sink: any SampleSink) throws

    /// Whether the source hands over lifecycle marks (``SampleSink/mark(_:at:)``), as a trace
    /// played as a simulated device does: its `stop` mark then ends the measurement. Default `false`.
    var drivesLifecycle: Bool { get }

    /// The modality the recording begins with (a trace's `start` mark), or `nil` if the source
    /// does not say (the default).
    func initialModality() throws -> Modality?

    /// This source continuing a measurement whose recorder died: it skips everything at or before
    /// `committedEnd` (what the store already has) and plays the rest as if it had been held from
    /// `committedEnd` to `resumedAt`. Its ``name`` says so, for the next recovery. A live device
    /// has nothing to skip and returns itself (the default).
    func continuing(measurementStart: Int64, committedEnd: Int64, resumedAt: Int64) -> any SampleSource

    /// This source as it plays when motion decides where rides begin and end (`ride.detect:
    /// auto`): a trace then plays as a receiver would, from when it starts, its marks left out
    /// and nothing ended at its end. A live device is that already and returns itself (the default).
    func detectingRides() -> any SampleSource

    /// How many times faster than real time the source's world runs: 1 for a device, `N` for a
    /// trace played with `@speed=N`. The ride rules' times run that much faster with it
    /// (``RideSettings/playing(at:)``), so that a trace's rides come out as at live pace.
    var pace: Double { get }
}

extension SampleSource {
    package var clock: SourceClock { .host }
    package var drivesLifecycle: Bool { false }
    package func initialModality() throws -> Modality? { nil }
    package func continuing(measurementStart: Int64, committedEnd: Int64, resumedAt: Int64) -> any SampleSource { self }
    package func detectingRides() -> any SampleSource { self }
    package var pace: Double { 1 }
}

/// Where a running source hands what it reads: samples, notes and, for a source that drives the
/// lifecycle, marks. The recorder gives each source a sink of its own; it must never block the
/// source (the recorder's sink puts samples in an inbox and returns).
package protocol SampleSink: Sendable {
    /// The samples of one read, in the order they were taken.
    func deliver(_ samples: [Sample])
    /// The samples of one read that a simulated device hands over at `time` (Unix ms, host
    /// clock), when it is due: a trace's record at its re-based time, however late its thread
    /// ran. The ride rules judge it at that time, so a trace gives the same rides every run.
    /// Default: ``deliver(_:)``, at the time it arrives.
    func deliver(_ samples: [Sample], at time: Int64)
    /// A loss, a skipped input, a GNSS fix state or a remark (``SourceNote``).
    func note(_ note: SourceNote)
    /// A lifecycle mark at `time` (Unix ms), applied as the control command of the same name.
    func mark(_ command: LifecycleCommand, at time: Int64)
    /// Given when the source should return. A source that waits in `poll(2)` puts its
    /// ``StopSignal/descriptor`` in the poll set; one that sleeps uses ``StopSignal/sleep(until:)``.
    var stop: StopSignal { get }
    /// When the measurement began (Unix ms, host clock): what a trace's times are re-based onto.
    var measurementStart: Int64 { get }
}

extension SampleSink {
    package func deliver(_ samples: [Sample], at time: Int64) { deliver(samples) }
}

/// A sink made of closures: for tools that run a source on their own (`capture doctor`,
/// `capture sensors`) and for tests.
package struct ClosureSink: SampleSink {
    package let stop: StopSignal
    package let measurementStart: Int64
    private let onSamples: @Sendable ([Sample]) -> Void
    private let onNote: @Sendable (SourceNote) -> Void
    private let onMark: @Sendable (LifecycleCommand, Int64) -> Void

    /// A sink that calls `deliver`, `note` and `mark`; a trace run through it plays from
    /// `measurementStart` (default: now).
    package init(
        stop: StopSignal, measurementStart: Int64 = WallClock.now(), deliver: @escaping @Sendable ([Sample]) -> Void,
        note: @escaping @Sendable (SourceNote) -> Void = { _ in },
        mark: @escaping @Sendable (LifecycleCommand, Int64) -> Void = { _, _ in }
    ) {
        self.stop = stop
        self.measurementStart = measurementStart
        onSamples = deliver
        onNote = note
        onMark = mark
    }

    package func deliver(_ samples: [Sample]) { onSamples(samples) }
    package func note(_ note: SourceNote) { onNote(note) }
    package func mark(_ command: LifecycleCommand, at time: Int64) { onMark(command, time) }
}

/// Which clock a source's times are on, for one clock per measurement (``GNSSClock``).
package enum SourceClock: Sendable, Equatable {
    /// The host's: IIO timestamps, a trace re-based onto now. Moved onto GNSS time when the
    /// host clock is found wrong.
    case host
    /// A live GNSS receiver's: its fixes tell how far the host clock is off; never moved.
    case gnss
    /// A recording's own (a receiver log read from a file): neither moved nor a reference.
    case recorded
}

/// The wall clock, in Unix milliseconds.
package enum WallClock {
    package static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Sleeps until `deadline` (Unix ms) in slices of at most 100 ms; returns early, `false`,
    /// if `shouldStop()` turns true.
    package static func sleep(until deadline: Int64, shouldStop: () -> Bool) -> Bool {
        while true {
            if shouldStop() { return false }
            let left = deadline - now()
            if left <= 0 { return true }
            usleep(UInt32(min(left, 100)) * 1000)
        }
    }
}

extension Sample {
    /// Moves the sample to another timestamp.
    package mutating func shift(to time: Int64) {
        switch self {
        case .motion(let sensor, var value):
            value.timestamp = time
            self = .motion(sensor, value)
        case .fix(var fix):
            fix.timestamp = time
            self = .fix(fix)
        case .pressure(var pressure):
            pressure.timestamp = time
            self = .pressure(pressure)
        }
    }
}
