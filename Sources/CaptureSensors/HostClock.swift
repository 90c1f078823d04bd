import CTimex

/// The host clock's standing with the kernel, as `adjtimex(2)` (read only) says it: for the
/// recorder's choice of time base, `capture doctor --system` and the fleet's heartbeat.
package struct HostClock: Sendable, Equatable {
    /// The kernel says the clock is synchronised (NTP or PTP keeps it): `adjtimex` answers
    /// anything but `TIME_ERROR`. A board without a real-time clock says no until its first
    /// NTP answer.
    package var synchronized: Bool
    /// The kernel's estimate of the clock's error, and its bound, in seconds (what the NTP
    /// daemon last told it; 16 s, the kernel's maximum, while it knows nothing).
    package var estimatedError: Double
    package var maximumError: Double

    package init(synchronized: Bool, estimatedError: Double, maximumError: Double) {
        (self.synchronized, self.estimatedError, self.maximumError) = (synchronized, estimatedError, maximumError)
    }

    /// The kernel's answer now.
    package static func read() -> HostClock {
        var state = timex()
        let answer = adjtimex(&state)
        return HostClock(
            synchronized: answer >= 0 && answer != TIME_ERROR, estimatedError: Double(state.esterror) / 1e6,
            maximumError: Double(state.maxerror) / 1e6)
    }

    /// Whether the kernel says the clock is synchronised (``synchronized``).
    package static func isSynchronized() -> Bool { read().synchronized }
}
