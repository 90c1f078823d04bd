import CaptureCore

/// The events of a box's life, drawn from one seed (``SplitMix64``, nothing else random): each
/// day the collector's mood and two to four trips. A trip boots the box (its clock sometimes
/// days off), waits for a fix, then rides legs: riding, red lights, pushes, tunnels, parked
/// stretches long enough to end the ride, power glitches with a boot inside or outside
/// `ride.resume_within`, a short push right before a cut; it ends parked then cut, or cut
/// riding.
package enum LifePlan {
    /// The events of `days` days of the life with `seed`.
    package static func events(seed: UInt64, days: Int) -> [SimulatedEvent] {
        var plan = Drawing(random: SplitMix64(seed: seed))
        for day in 0..<days { plan.day(day) }
        return plan.events
    }

    struct Drawing {
        var random: SplitMix64
        var events: [SimulatedEvent] = []
        /// True time of the end of the events so far, ms since the life began.
        var now: Int64 = 0
        var heading = 200.0
        var skew: Int64 = 0

        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
        }

        mutating func chance(_ probability: Double) -> Bool { random.unit() < probability }

        /// A value with two decimals, as the event log writes it.
        mutating func decimal(_ range: ClosedRange<Double>) -> Double {
            ((range.lowerBound + random.unit() * (range.upperBound - range.lowerBound)) * 100).rounded() / 100
        }

        mutating func add(_ event: SimulatedEvent) {
            events.append(event)
            switch event {
            case .boot(let off, _): now += off
            case .move(let seconds, _, _), .stand(let seconds): now += Int64(seconds) * 1000
            case .noFix, .cut, .collector: break
            }
        }

        mutating func day(_ day: Int) {
            let mood: SimulatedEvent.Collector = chance(0.7) ? .up : chance(0.5) ? .down : .failing
            add(.collector(mood))
            let trips = int(2...4)
            for trip in 0..<trips {
                let start = Int64(day) * 86_400_000 + Int64(6 + trip * 4) * 3_600_000 + Int64(int(0...7_200)) * 1000
                if trip == trips / 2, chance(0.2) { add(.collector(mood == .up ? .down : .up)) }
                self.trip(startingAt: max(start, now + 60_000))
            }
        }

        mutating func trip(startingAt start: Int64) {
            // No RTC: now and then the clock is hours or days off until the receiver's time.
            skew = chance(0.75) ? 0 : Int64(int(-259_200...259_200)) * 1000
            add(.boot(offFor: start - now, skew: skew))
            coldStart()
            add(.stand(seconds: int(10...120)))
            heading = decimal(140...320)
            for _ in 0..<int(3...12) { leg() }
            switch random.unit() {
            case ..<0.5: add(.stand(seconds: int(330...900)))
            case ..<0.85: break
            default: add(.stand(seconds: int(60...240)))
            }
            add(.cut(actions: cutPoint()))
        }

        mutating func coldStart() {
            switch random.unit() {
            case ..<0.7: add(.noFix(seconds: int(20...60)))
            case ..<0.9: add(.noFix(seconds: int(120...360)))
            default: break
            }
        }

        /// Where in the actions of the last step the power goes: mostly between steps.
        mutating func cutPoint() -> Int { chance(0.5) ? 0 : int(1...6) }

        mutating func leg() {
            // Kept to two decimals, as the event log writes it, so that a replayed log is the same life.
            heading = (min(359, max(0, heading + decimal(-30...30))) * 100).rounded() / 100
            switch random.unit() {
            case ..<0.4: add(.move(seconds: int(60...600), speed: decimal(3...7), heading: heading))
            case ..<0.55: add(.stand(seconds: int(10...90)))
            case ..<0.65: add(.move(seconds: int(15...90), speed: decimal(1.2...1.9), heading: heading))
            case ..<0.72:
                add(.noFix(seconds: int(20...90)))
                add(.move(seconds: int(30...120), speed: decimal(3...7), heading: heading))
            case ..<0.8: add(.stand(seconds: int(330...1_200)))
            case ..<0.92:
                // A glitch: the power goes and comes back, inside ride.resume_within or not.
                add(.cut(actions: cutPoint()))
                let off = chance(0.7) ? int(1...90) : int(180...900)
                add(.boot(offFor: Int64(off) * 1000, skew: skew))
                // Mostly a warm start; now and then no fix for longer than ride.end_after_still.
                add(.noFix(seconds: chance(0.8) ? int(5...60) : int(120...420)))
            default:
                // A short push, and the power goes.
                add(.move(seconds: int(5...30), speed: decimal(1.2...1.9), heading: heading))
                add(.cut(actions: cutPoint()))
                let off = chance(0.5) ? int(1...90) : int(180...900)
                add(.boot(offFor: Int64(off) * 1000, skew: skew))
            }
        }
    }
}
