/// How far the host clock is from GNSS time, from the fixes of a live receiver.
///
/// Each fix carries its GNSS time; the recorder notes the host clock when the fix arrives. Their
/// difference (GNSS − host) is the offset plus the receiver's output delay (a few hundred
/// milliseconds). The median of the last ``window`` differences is the estimate, and their
/// spread (largest minus smallest) says how much to trust it.
///
/// A board without a real-time clock boots with a clock that may be off by days until NTP
/// answers. Once at least ``minimumFixes`` agree (spread under ``threshold``) on an offset
/// larger than ``threshold``, the host clock is taken to be wrong: ``correction`` is then what to
/// add to host times to put them on GNSS time. A step of the host clock (NTP catching up) shows
/// as ``minimumFixes`` fixes in a row far from the estimate; the window then starts again, so the
/// correction follows within a few fixes.
///
/// ```swift
/// var clock = GNSSClock()
/// clock.observe(gnss: fix.timestamp, host: now)
/// let stored = hostTime + (clock.correction ?? 0)
/// ```
public struct GNSSClock: Sendable, Equatable {
    /// An offset larger than this (milliseconds, either way) means the host clock is wrong: 3 s,
    /// well above a receiver's output delay (up to about 1 s) and below what NTP leaves behind.
    public static let threshold: Int64 = 3_000
    /// How many fixes must agree before the offset is trusted.
    public static let minimumFixes = 5
    /// How many of the latest differences the estimate is taken over.
    public static let window = 15

    private var differences: [Int64] = []
    /// Differences in a row far from the median: a step of either clock, once there are enough.
    private var outliers: [Int64] = []
    /// How many fixes were observed in all.
    public private(set) var fixes = 0
    /// The correction in force (GNSS − host, milliseconds), or `nil` while the host clock is
    /// taken to be right (or nothing is known yet).
    public private(set) var correction: Int64?

    /// Starts with what an earlier recorder of the same measurement applied (`nil`: nothing).
    public init(correction: Int64? = nil) {
        self.correction = correction
    }

    /// Whether the host clock is judged, right or wrong: at least ``minimumFixes`` differences
    /// in the window agree (spread under ``threshold``).
    public var judged: Bool {
        differences.count >= Self.minimumFixes && spread.map { $0 < Self.threshold } == true
    }

    /// The median difference (GNSS − host, milliseconds) over the window, once there is one.
    public var median: Int64? {
        guard !differences.isEmpty else { return nil }
        let sorted = differences.sorted()
        return sorted[sorted.count / 2]
    }

    /// The largest minus the smallest difference in the window.
    public var spread: Int64? {
        guard let low = differences.min(), let high = differences.max() else { return nil }
        return high - low
    }

    /// Notes a fix whose GNSS time is `gnss`, received when the host clock read `host` (both Unix
    /// milliseconds). Returns whether ``correction`` changed.
    @discardableResult
    public mutating func observe(gnss: Int64, host: Int64) -> Bool {
        let (difference, overflow) = gnss.subtractingReportingOverflow(host)
        guard !overflow else { return false }
        fixes += 1
        if let median, abs(difference - median) > Self.threshold {
            outliers.append(difference)
            guard outliers.count >= Self.minimumFixes else { return false }
            // The host clock stepped (or the receiver did): these fixes are the window now.
            differences = outliers
        } else {
            differences.append(difference)
        }
        outliers.removeAll()
        if differences.count > Self.window { differences.removeFirst(differences.count - Self.window) }
        guard differences.count >= Self.minimumFixes, let median, let spread, spread < Self.threshold else { return false }
        let next: Int64? = abs(median) > Self.threshold ? median : (correction == nil ? nil : 0)
        guard next != correction else { return false }
        correction = next
        return true
    }
}

/// When a recorder puts host-clock times on GNSS time (`capture start --gnss-time`).
public enum GNSSTimePolicy: String, Sendable, Equatable, CaseIterable, Codable {
    /// When the host clock is off by more than ``GNSSClock/threshold`` and the kernel says it is
    /// not synchronised (no NTP yet): a synchronised clock is trusted over a receiver, which may
    /// have a week-number rollover or be fed an old log.
    case auto
    /// Whenever the host clock is off by more than the threshold.
    case always
    /// Never: times stay as they come (the offset is still shown).
    case never
}

/// What `capture status` shows of the clocks.
public struct ClockReport: Codable, Sendable, Equatable {
    /// Fixes of live receivers observed.
    public var fixes: Int
    /// GNSS − host time, median over the last fixes (milliseconds).
    public var offsetMs: Int64?
    /// Largest minus smallest of those differences.
    public var spreadMs: Int64?
    /// What is added to host-clock times, if anything.
    public var correctionMs: Int64?
    /// Whether the kernel says the host clock is synchronised (NTP).
    public var hostSynchronized: Bool
    public var policy: GNSSTimePolicy

    public init(
        fixes: Int, offsetMs: Int64?, spreadMs: Int64?, correctionMs: Int64?, hostSynchronized: Bool,
        policy: GNSSTimePolicy
    ) {
        self.fixes = fixes
        self.offsetMs = offsetMs
        self.spreadMs = spreadMs
        self.correctionMs = correctionMs
        self.hostSynchronized = hostSynchronized
        self.policy = policy
    }
}
