import Foundation

/// What ``Month`` plays: each day's trips (the box powered from the start of one to the power cut
/// at its end), each a list of legs, standing or moving, and what is true of every epoch the
/// receiver sent, against which the collector's measurements are checked.
struct MonthPlan {
    /// One stretch of a trip, in whole seconds (one receiver epoch a second).
    struct Leg {
        var seconds: Int
        var moving: Bool
        /// A power cut after this many seconds of the leg, and how long (simulated ms) the power
        /// stays off before the box boots again within the same trip.
        var cut: (after: Int, off: Int64)?
    }

    struct Trip {
        /// The true time the box powers on (Unix ms).
        var start: Int64
        var legs: [Leg]
        /// Seconds after the trip's boot at which the timer's `capture sync` starts (after a
        /// boot inside the trip: 2 s).
        var syncAfter: Int
        var collectorUp: Bool
    }

    var trips: [Trip] = []
    var downDays: Set<Int> = []

    /// The simulated month begins 2027-04-01 00:00 UTC.
    static let begin: Int64 = 1_806_537_600_000
    static let day: Int64 = 86_400_000
    static let hour: Int64 = 3_600_000
    /// A stop shorter than `ride.end_after_still` (3 s): the ride goes on.
    static let shortPark = 1
    /// A stop long enough to end the ride by standing still (3 s), with room for the detector's
    /// second and for the windows of two rides not to meet.
    static let longPark = 9
    /// A ride's part after a power cut moves at least this long (s), so that it passes
    /// `ride.min_distance` from its fixes alone (the receiver's first epochs have none).
    static let afterCut = 7

    /// Days of two to `mostTrips` trips (`mostTrips` ≥ 2), at random hours between 06:00 and
    /// 22:00; the collector is down for whole days (about three in ten, at least one, at most two
    /// in a row). The
    /// power goes at the end of every trip, and inside a ride in about one trip in five (always
    /// in the second trip of the run).
    static func make(days: Int, mostTrips: Int, context: Context) -> MonthPlan {
        var plan = MonthPlan()
        // Never more than two days down in a row: the store's budget holds what waits meanwhile.
        for day in 0..<days where context.uniform(0...1) < 0.3 && !(plan.downDays.contains(day - 1) && plan.downDays.contains(day - 2)) {
            plan.downDays.insert(day)
        }
        if plan.downDays.isEmpty { plan.downDays.insert(context.integer(0..<days)) }
        var tripNumber = 0
        for day in 0..<days {
            let count = 2 + context.integer(0..<(mostTrips - 1))
            var hours = Set<Int>()
            while hours.count < count { hours.insert(6 + context.integer(0..<16)) }
            for hour in hours.sorted() {
                let start = begin + Int64(day) * Self.day + Int64(hour) * Self.hour + Int64(context.integer(0..<50)) * 60_000
                var legs: [Leg] = [Leg(seconds: 2, moving: false)]
                let rides = context.uniform(0...1) < 0.3 ? 2 : 1
                for ride in 0..<rides {
                    if ride > 0 { legs.append(Leg(seconds: longPark, moving: false)) }
                    legs.append(Leg(seconds: 5 + context.integer(0..<3), moving: true))
                    if context.uniform(0...1) < 0.5 {
                        legs.append(Leg(seconds: shortPark, moving: false))
                        legs.append(Leg(seconds: 4 + context.integer(0..<3), moving: true))
                    }
                }
                // Most rides end with the power cut a moment after the bike stands; some stand
                // long enough for the ride to end by itself first.
                legs.append(Leg(seconds: context.uniform(0...1) < 0.7 ? 1 + context.integer(0..<2) : 6, moving: false))
                if tripNumber == 1 || context.uniform(0...1) < 0.2 {
                    let moving = legs.indices.filter { legs[$0].moving }
                    let leg = moving[context.integer(0..<moving.count)]
                    let after = 2 + context.integer(0..<3)
                    legs[leg].seconds = max(legs[leg].seconds, after + afterCut)
                    // Off for half a minute (within ride.resume_within: the ride may go on) or
                    // for twenty minutes (it is finished; the rest is a ride of its own).
                    legs[leg].cut = (after, context.uniform(0...1) < 0.5 ? 30_000 : 1_200_000)
                }
                let seconds = legs.reduce(0) { $0 + $1.seconds }
                plan.trips.append(
                    Trip(start: start, legs: legs, syncAfter: 1 + context.integer(0..<seconds), collectorUp: !plan.downDays.contains(day)))
                tripNumber += 1
            }
        }
        return plan
    }

    /// A boot's clock: off by 1–23 hours or 1–5 days, either way, to the millisecond.
    static func clockOffset(_ context: Context) -> Int64 {
        let size = context.uniform(0...1) < 0.5 ? Int64(1 + context.integer(0..<23)) * hour : Int64(1 + context.integer(0..<5)) * day
        let sign: Int64 = context.uniform(0...1) < 0.5 ? -1 : 1
        return sign * (size + Int64(context.integer(0..<3_600_000)))
    }
}

/// What the campaign knows to be true: every epoch the receiver sent with a fix (true time), the
/// ride it belongs to, and the rides' motion (true times).
struct MonthTruth {
    struct Ride {
        var firstMotion: Int64
        var lastMotion: Int64
    }

    struct Epoch {
        var ride: Int?
        var moving: Bool
        /// Sent within a flush interval and its allowance before a power cut: it may be lost.
        var mayBeLost = false
    }

    var rides: [Ride] = []
    var epochs: [Int64: Epoch] = [:]
    /// The ride under way (moving, or standing shorter than `ride.end_after_still`).
    var current: Int?
    /// When the device began to stand, while a ride is under way.
    var standingSince: Int64?

    /// Notes an epoch at `time`; `fix`: whether it carried a fix.
    mutating func note(_ time: Int64, moving: Bool, fix: Bool, endAfterStill: Int64) {
        if moving {
            if current == nil {
                rides.append(Ride(firstMotion: time, lastMotion: time))
                current = rides.count - 1
            }
            rides[current!].lastMotion = time
            standingSince = nil
        } else if let ride = current {
            let since = standingSince ?? time
            standingSince = since
            if time - rides[ride].lastMotion >= endAfterStill + 2_000 { current = nil }
        }
        if fix { epochs[time] = Epoch(ride: moving ? current : nil, moving: moving) }
    }

    /// The power goes at `time`: the fixes of the last `window` ms may be lost. A trip's end
    /// ends its ride; a cut inside a ride does not (it may be continued or split).
    mutating func cut(at time: Int64, window: Int64, endsRide: Bool) {
        for (at, _) in epochs where at > time - window && at <= time { epochs[at]?.mayBeLost = true }
        if endsRide {
            current = nil
            standingSince = nil
        }
    }

    /// The ride whose window holds `time`: from its first motion less the pre-roll to its last
    /// motion plus `ride.end_after_still`, each with `slack`.
    func ride(at time: Int64, preRoll: Int64, endAfterStill: Int64, slack: Int64) -> Int? {
        rides.indices.first { rides[$0].firstMotion - preRoll - slack <= time && time <= rides[$0].lastMotion + endAfterStill + slack }
    }
}
