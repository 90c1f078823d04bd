/// How rides begin and end (`ride.*` in the configuration). A plain value: the configuration
/// resolves it, the recorder's state value follows it.
public struct RideSettings: Sendable, Equatable, Codable {
    /// Who decides where rides begin and end.
    public enum Detection: String, Sendable, Equatable, CaseIterable, Codable {
        /// Only commands and a trace's marks (`capture start`, `capture stop`).
        case off
        /// Motion and power: the recorder arms, begins a ride on motion and ends it when still.
        case auto
    }

    /// `ride.detect`.
    public var detect: Detection
    /// `ride.resume_within`, ms: an interrupted measurement whose last committed data is younger
    /// is continued on a new track; an older one is finished as it stands.
    public var resumeWithin: Int64
    /// `ride.end_after_still`, ms: standing still this long ends the ride.
    public var endAfterStill: Int64
    /// `ride.pre_roll`, ms: what a ride begun by motion holds from before the motion.
    public var preRoll: Int64
    /// `ride.min_distance`, metres: a finished ride that moved less is discarded and counted.
    public var minDistance: Double
    /// `ride.max_duration`, ms: a longer ride is continued as a new measurement.
    public var maxDuration: Int64
    /// `collector.payload_limit`, bytes (`nil`: unlimited): a measurement is continued as a new
    /// one before its transfer file could pass it.
    public var payloadLimit: Int64?

    /// How many times faster than real time the sources' world runs (1: a device; `N`: a trace
    /// played with `@speed=N`); the motion detector's times are shortened by it too.
    public var pace: Double = 1

    /// The defaults of the configuration's table.
    public static let standard = RideSettings()

    /// These rules for sources whose world runs `pace` times faster than real time (a trace with
    /// `@speed=N`): `pre_roll`, `end_after_still` and `max_duration` are that many times shorter,
    /// so that the trace's rides begin and end where they would at live pace. `resume_within`
    /// stays (a power cut is real time); a pace at or below 1 changes nothing.
    public func playing(at pace: Double) -> RideSettings {
        guard pace > 1, pace.isFinite else { return self }
        func shortened(_ milliseconds: Int64) -> Int64 { max(1, Int64((Double(milliseconds) / pace).rounded())) }
        var settings = self
        settings.pace = pace
        (settings.preRoll, settings.endAfterStill) = (shortened(preRoll), shortened(endAfterStill))
        settings.maxDuration = shortened(maxDuration)
        return settings
    }

    public init(
        detect: Detection = .off, resumeWithin: Int64 = 120_000, endAfterStill: Int64 = 300_000, preRoll: Int64 = 10_000,
        minDistance: Double = 50, maxDuration: Int64 = 12 * 3_600_000, payloadLimit: Int64? = 100 * 1_048_576
    ) {
        self.payloadLimit = payloadLimit
        self.detect = detect
        self.resumeWithin = resumeWithin
        self.endAfterStill = endAfterStill
        self.preRoll = preRoll
        self.minDistance = minDistance
        self.maxDuration = maxDuration
    }

    /// Whether an interrupted measurement whose committed data ends at `committedEnd` (host
    /// clock, Unix ms) is continued by a recorder starting at `now`. A clock that went backwards
    /// (a board without a real-time clock, before NTP) says nothing about how long the power was
    /// off, so the measurement is finished then: a ride split in two is delivered, two rides
    /// merged into one are not what happened.
    public func continues(committedEnd: Int64, at now: Int64) -> Bool {
        let age = now - committedEnd
        return age >= 0 && age <= resumeWithin
    }
}

extension RideSettings {
    /// The rules `ride.*` sets (`settings` scoped to `ride`); `payloadLimit` is the collector's
    /// (`collector.payload_limit`, bytes).
    public init(reading settings: some SettingsReader, payloadLimit: Int64?) throws(SettingsError) {
        self.init(
            detect: try settings.choice("detect"), resumeWithin: try settings.milliseconds("resume_within"),
            endAfterStill: try settings.milliseconds("end_after_still"), preRoll: try settings.milliseconds("pre_roll"),
            minDistance: try settings.metres("min_distance"), maxDuration: try settings.milliseconds("max_duration"),
            payloadLimit: payloadLimit)
    }
}
