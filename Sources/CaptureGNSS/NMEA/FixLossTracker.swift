package import CaptureCore

/// A change in whether the receiver has a position fix.
package enum FixTransition: Sendable, Equatable {
    /// The first fix, or the first after a loss, at this Unix time (ms).
    case acquired(at: Int64)
    /// No fix for ``FixLossTracker/timeout`` of sentence time. `at` is when that was noticed,
    /// `lastFix` the time of the last fix (both Unix ms).
    case lost(at: Int64, lastFix: Int64)
}

/// Decides "fix acquired" and "fix lost" from epoch times and whether each epoch had a fix.
///
/// Time is sentence time (the receiver's UTC), not the host clock, so replays behave like live
/// input. A receiver that stops sending times altogether cannot be judged here; an adapter
/// watching the device can add its own wall-clock timeout.
package struct FixLossTracker: Sendable, Equatable {
    /// Whether the tracker currently considers the receiver fixed.
    package enum State: Sendable, Equatable {
        /// No fix seen yet, or the last one was lost.
        case searching
        /// Fixed; the last fix was at this Unix time (ms).
        case fixed(lastFix: Int64)
    }

    /// Time without a fix after which the fix counts as lost, in ms (2 s by default).
    package let timeout: Int64
    /// The current state.
    package private(set) var state: State = .searching

    /// - Parameter timeout: ms without a fix before ``FixTransition/lost(at:lastFix:)`` (default 2000).
    package init(timeout: Int64 = 2_000) {
        self.timeout = timeout
    }

    /// An epoch at `time` (Unix ms) had a fix.
    package mutating func fix(at time: Int64) -> FixTransition? {
        defer { state = .fixed(lastFix: time) }
        if case .fixed = state { return nil }
        return .acquired(at: time)
    }

    /// An epoch at `time` (Unix ms) had no fix.
    package mutating func noFix(at time: Int64) -> FixTransition? {
        guard case .fixed(let lastFix) = state else { return nil }
        let (elapsed, overflow) = time.subtractingReportingOverflow(lastFix)
        guard overflow ? time > lastFix : elapsed >= timeout else { return nil }
        state = .searching
        return .lost(at: time, lastFix: lastFix)
    }
}
