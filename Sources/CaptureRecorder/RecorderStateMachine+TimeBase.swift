package import CaptureCore

extension RecorderStateMachine {
    /// The measurement's time base: the host clock, or GNSS time once a live receiver found the
    /// host clock off and the policy (`--gnss-time`) lets the measurement move onto it. One per
    /// recorder: a correction found goes on for the rides after it, and for the measurement a
    /// later recorder continues (the host clock is likely still as wrong).
    package struct TimeBase: Sendable, Equatable {
        /// `--gnss-time`: when the measurement moves onto GNSS time.
        package let policy: GNSSTimePolicy
        /// Whether the kernel said the host clock is synchronised when the recorder started.
        package let hostSynchronized: Bool
        /// The host clock against live receivers' GNSS time.
        private(set) var clock = GNSSClock()
        /// What is added to host-clock times (events, motion, pressure); nil while nothing is.
        package private(set) var correction: Int64?
        /// Whether ``correction`` was taken from one fix before the clock was judged
        /// (``early(gnss:arrived:start:)``): the clock's first judgement replaces it.
        private var provisional = false

        /// What a fix changed.
        package enum Change: Sendable, Equatable {
            /// The host clock was found off: everything stored on it moves by this much, and
            /// what comes is moved as it arrives.
            case moved(Int64)
            /// A better estimate of a correction already applied: recorded, nothing moves again.
            case refined(Int64)
        }

        package init(policy: GNSSTimePolicy, hostSynchronized: Bool) {
            self.policy = policy
            self.hostSynchronized = hostSynchronized
        }

        /// What host-clock times move by: the correction, 0 before one.
        package var offset: Int64 { correction ?? 0 }

        /// Whether the policy lets the measurement move onto GNSS time: `always`, or `auto` on a
        /// host clock the kernel does not call synchronised.
        var mayCorrect: Bool { policy == .always || (policy == .auto && !hostSynchronized) }

        /// Notes a live receiver's fix (its GNSS time, and when it arrived on the host clock);
        /// the change, once the estimate is steady and the policy allows. A correction taken
        /// from one fix before (``early(gnss:arrived:start:)``) is refined by the first
        /// judgement, whatever it is: what is stored stays where that fix put it.
        package mutating func observe(gnss: Int64, host: Int64) -> Change? {
            let changed = clock.observe(gnss: gnss, host: host)
            guard mayCorrect else { return nil }
            if provisional {
                guard clock.judged else { return nil }
                provisional = false
                let judged = clock.correction ?? 0
                guard judged != correction else { return nil }
                correction = judged
                return .refined(judged)
            }
            guard changed, let next = clock.correction else { return nil }
            defer { correction = next }
            return correction == nil ? .moved(next) : .refined(next)
        }

        /// What becomes of a live receiver's fix at `gnss`, arrived at `arrived` (host clock),
        /// that lies before its track's `start` (events' clock) by more than
        /// ``GNSSClock/threshold`` while no correction is in force.
        package enum Early: Sendable, Equatable {
            /// The clock is not judged yet and the policy lets the measurement move: the fix's
            /// own time is taken at once, everything stored on the host clock moves by this
            /// much (so the track's start lies at or before the fix), and what comes is moved as
            /// it arrives. The clock's first judgement refines it; nothing moves again.
            case moves(Int64)
            /// The clock is judged right: the fix is stale (bytes left in a tty buffer when the
            /// source opened), dropped.
            case stale
            /// The policy keeps host-clock times and the fixes have not found the host clock
            /// right: the fix goes in with its own time.
            case kept
        }

        /// Decides what becomes of such a fix (``Early``); with ``Early/moves(_:)`` the
        /// correction is in force.
        package mutating func early(gnss: Int64, arrived: Int64, start: Int64) -> Early {
            if clock.judged {
                return (clock.correction ?? 0) == 0 ? .stale : .kept
            }
            guard mayCorrect else { return .kept }
            // From the fix's arrival: what is stored moves as a judged correction would move it.
            // A track that starts after the arrival (a continued one) starts at the fix.
            let next = gnss - max(arrived, start)
            correction = next
            provisional = true
            return .moves(next)
        }

        /// Goes on with what an earlier recorder applied to the measurement it continues.
        package mutating func continuing(_ applied: Int64?) {
            correction = applied
            provisional = false
            clock = GNSSClock(correction: applied)
        }

        /// Whether a receiver's time without a correction is taken to agree with the events' clock
        /// at `time`: no correction in force, and the two within ``GNSSClock/threshold`` (a host
        /// clock that far off is taken to be right, so a fix's time may run up to that much ahead
        /// of it or behind). A span on the events' clock stretches to take in such a fix, so a
        /// measurement holds every fix it kept; a fix further off stretches nothing.
        package func agrees(gnss: Int64, with time: Int64) -> Bool {
            correction == nil && abs(gnss - time) <= GNSSClock.threshold
        }

        /// What `capture status` shows of the clocks; nil before any fix or correction.
        package var report: ClockReport? {
            guard clock.fixes > 0 || correction != nil else { return nil }
            return ClockReport(
                fixes: clock.fixes, offsetMs: clock.median, spreadMs: clock.spread, correctionMs: correction,
                hostSynchronized: hostSynchronized, policy: policy)
        }
    }
}
