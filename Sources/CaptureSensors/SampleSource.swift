public import CaptureCore
import Glibc

/// A live source of samples: a device, a receiver or a trace played at its own pace.
///
/// `run` blocks on its own thread until the source ends (returns), fails (throws), or
/// `shouldStop()` turns true. It hands every sample to `deliver`.
public protocol SampleSource: Sendable {
    /// What the source is, for `capture status` (`trace:ride.trace`).
    var name: String { get }
    /// Which clock its times are on (the host's unless it says otherwise).
    var clock: SourceClock { get }
    func run(deliver: @Sendable (Sample) -> Void, shouldStop: @Sendable () -> Bool) throws
}

/// Which clock a source's times are on, for one clock per measurement (``GNSSClock``).
public enum SourceClock: Sendable, Equatable {
    /// The host's: IIO timestamps, a trace re-based onto now. Moved onto GNSS time when the
    /// host clock is found wrong.
    case host
    /// A live GNSS receiver's: its fixes tell how far the host clock is off; never moved.
    case gnss
    /// A recording's own (a receiver log read from a file): neither moved nor a reference.
    case recorded
}

extension SampleSource {
    public var clock: SourceClock { .host }
}

/// A source that also drives the measurement's lifecycle, as the device it simulates would: a
/// recorded trace with its `start`, `pause`, `resume`, `modality` and `stop` marks.
///
/// The recorder asks it for the initial modality, runs it with the measurement's start time
/// (every time the source hands over is re-based onto that), and applies each mark exactly as
/// the control-socket command of the same name, at the mark's time. IIO, gpsd and NMEA sources
/// are plain ``SampleSource``s.
public protocol LifecycleDrivingSource: SampleSource {
    /// The modality the recording begins with (a trace's `start` mark), or `nil` if it does not say.
    func initialModality() throws -> Modality?

    /// Plays for the measurement that began at `measurementStart` (Unix ms) until the source ends
    /// (after handing over its `stop`), fails, or `shouldStop()` turns true.
    func run(
        measurementStart: Int64, deliver: @Sendable (Sample) -> Void,
        mark: @Sendable (LifecycleCommand, Int64) -> Void, shouldStop: @Sendable () -> Bool) throws

    /// This source continuing a measurement whose recorder died: it skips everything at or before
    /// `committedEnd` (what the store already has) and plays the rest as if it had been held from
    /// `committedEnd` to `resumedAt`. Its ``SampleSource/name`` says so, for the next recovery.
    func continuing(measurementStart: Int64, committedEnd: Int64, resumedAt: Int64) -> Self
}

/// The wall clock, in Unix milliseconds.
public enum WallClock {
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Sleeps until `deadline` (Unix ms) in slices of at most 100 ms; returns early, `false`,
    /// if `shouldStop()` turns true.
    public static func sleep(until deadline: Int64, shouldStop: () -> Bool) -> Bool {
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
    public mutating func shift(to time: Int64) {
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

/// The host clock's standing with the kernel.
public enum HostClock {
    /// Whether the kernel says the clock is synchronised (NTP or PTP keeps it): `adjtimex(2)`
    /// answers anything but `TIME_ERROR`. A board without a real-time clock says no until its
    /// first NTP answer.
    public static func isSynchronized() -> Bool {
        // Glibc's module map leaves out <sys/timex.h>: the call is looked up by name, with a
        // zeroed buffer larger than any `struct timex` (208 bytes on 64-bit Linux); modes 0
        // only reads. TIME_ERROR is 5.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "adjtimex") else { return false }
        typealias AdjTimeX = @convention(c) (UnsafeMutableRawPointer) -> Int32
        let adjtimex = unsafeBitCast(symbol, to: AdjTimeX.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
        let state = adjtimex(buffer)
        return state >= 0 && state != 5
    }
}
