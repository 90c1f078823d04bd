package import CaptureCore

/// Whether the device moves, from its GNSS fixes and its accelerometer: the `ride.detect: auto`
/// rules' one judge (docs/rides.md). Pure: every time comes with its sample (the host clock at
/// which it arrived), so it is tested sample by sample.
///
/// Still means: GNSS speed and displacement below their thresholds and, where an accelerometer
/// records, its variance below its threshold; with only one of them, that one. A source whose
/// last word is older than ``staleAfter`` has no say (a receiver without a fix, a sensor gone).
package struct MotionDetector: Sendable {
    /// Speed over ground at or above which a fix moves, m/s: 1 m/s (3.6 km/h) is slower than
    /// anyone pushing a bicycle, and above what a receiver standing still reports (typically
    /// below 0.3 m/s with a fix).
    package static let movingSpeed = 1.0
    /// Distance from where standing began at or above which a fix moves, metres: above the
    /// wander of a standing receiver's fixes (a few metres, 10–20 m under trees or buildings).
    package static let movingDisplacement = 25.0
    /// Variance of the acceleration's magnitude over one ``window`` at or above which the
    /// device moves, (m/s²)²: a standing sensor's noise is below 0.001, riding a bicycle on
    /// asphalt 0.5–10, an idling car engine up to about 0.02.
    package static let movingVariance = 0.05
    /// The accelerometer is judged once per window, ms.
    package static let window: Int64 = 1000
    /// A source whose last verdict is older than this has no say, ms.
    package static let staleAfter: Int64 = 5000

    /// What the detector concludes.
    package enum Verdict: Sendable, Equatable {
        case moving
        case still
    }

    /// Where standing began (the anchor of displacement); reset when the device moves.
    private var anchor: (latitude: Double, longitude: Double)?
    private var gnss: (verdict: Verdict, at: Int64)?
    private var accelerometer: (verdict: Verdict, at: Int64)?
    // The accelerometer window under way: its start, count, mean and M2 of the magnitude (Welford).
    private var windowStart: Int64?
    private var count = 0
    private var mean = 0.0
    private var m2 = 0.0

    /// ``window`` and ``staleAfter`` at this detector's pace (``RideSettings/pace``).
    private let windowLength: Int64
    private let staleLength: Int64

    /// A detector for sources whose world runs `pace` times faster than real time (a trace with
    /// `@speed=N`): its window and staleness are that many times shorter.
    package init(pace: Double = 1) {
        let pace = pace > 1 && pace.isFinite ? pace : 1
        windowLength = max(1, Int64((Double(Self.window) / pace).rounded()))
        staleLength = max(1, Int64((Double(Self.staleAfter) / pace).rounded()))
    }

    /// The device stands at `fix` until a fix says otherwise: displacement counts from there.
    /// A recorder that continues a ride after a power cut anchors at the ride's last committed
    /// fix, so that a first fix far from it is movement, as it is to a recorder that never stopped.
    package mutating func stands(at fix: Fix) {
        guard fix.latitude.isFinite, fix.longitude.isFinite else { return }
        anchor = (latitude: fix.latitude, longitude: fix.longitude)
    }

    /// Takes one sample that arrived at `time`; other kinds are ignored.
    package mutating func observe(_ sample: Sample, at time: Int64) {
        switch sample {
        case .fix(let fix): observe(fix, at: time)
        case .motion(.accelerometer, let motion): observe(acceleration: motion, at: time)
        default: break
        }
    }

    private mutating func observe(_ fix: Fix, at time: Int64) {
        guard fix.latitude.isFinite, fix.longitude.isFinite else { return }
        let here = (latitude: fix.latitude, longitude: fix.longitude)
        let displacement = anchor.map { Geodesy.distance(from: $0, to: here) } ?? 0
        let moving = (fix.speed ?? 0) >= Self.movingSpeed || displacement >= Self.movingDisplacement
        // Moving: displacement counts from the next place the device stands.
        if moving || anchor == nil { anchor = here }
        gnss = (moving ? .moving : .still, time)
    }

    private mutating func observe(acceleration sample: MotionSample, at time: Int64) {
        let magnitude = (sample.x * sample.x + sample.y * sample.y + sample.z * sample.z).squareRoot()
        guard magnitude.isFinite else { return }
        if let start = windowStart, time - start >= windowLength {
            if count >= 2 {
                accelerometer = (m2 / Double(count - 1) >= Self.movingVariance ? .moving : .still, time)
            }
            windowStart = nil
        }
        if windowStart == nil {
            windowStart = time
            count = 0
            mean = 0
            m2 = 0
        }
        count += 1
        let delta = magnitude - mean
        mean += delta / Double(count)
        m2 += delta * (magnitude - mean)
    }

    /// The verdict at `now`: moving if a source with a say moves, still if every one with a say
    /// stands, `nil` if none has a say.
    package func verdict(at now: Int64) -> Verdict? {
        let fresh = [gnss, accelerometer].compactMap { $0 }.filter { now - $0.at <= staleLength }
        guard !fresh.isEmpty else { return nil }
        return fresh.contains { $0.verdict == .moving } ? .moving : .still
    }
}
