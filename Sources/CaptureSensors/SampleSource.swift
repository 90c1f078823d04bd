public import CaptureCore
import Glibc

/// A live source of samples: a device, a receiver or a trace played at its own pace.
///
/// `run` blocks on its own thread until the source ends (returns), fails (throws), or
/// `shouldStop()` turns true. It hands every sample to `deliver`.
public protocol SampleSource: Sendable {
    /// What the source is, for `capture status` (`trace:ride.trace`).
    var name: String { get }
    func run(deliver: @Sendable (Sample) -> Void, shouldStop: @Sendable () -> Bool) throws
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

/// Plays a trace file at its own pace (or `speed` times faster), with timestamps shifted so that
/// its first record happens when the source starts. Lifecycle marks in the trace are ignored: a
/// live recording is driven by the shell commands.
public struct LiveTraceSource: SampleSource {
    public let file: TraceFile
    public let speed: Double

    public init(path: String, speed: Double = 1) {
        file = TraceFile(path: path)
        self.speed = speed
    }

    public var name: String { "trace:\(file.path)" }

    public func run(deliver: @Sendable (Sample) -> Void, shouldStop: @Sendable () -> Bool) throws {
        let anchor = WallClock.now()
        var first: Int64?
        struct Stopped: Error {}
        do {
            try file.forEachRecord { record, _ in
                guard case .sample(var sample) = record else { return }
                let origin = first ?? sample.timestamp
                first = origin
                let shifted = anchor + Int64((Double(sample.timestamp - origin) / speed).rounded())
                guard WallClock.sleep(until: shifted, shouldStop: shouldStop) else { throw Stopped() }
                sample.shift(to: shifted)
                deliver(sample)
            }
        } catch is Stopped {
            return
        }
    }
}

extension Sample {
    /// Moves the sample to another timestamp.
    mutating func shift(to time: Int64) {
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
