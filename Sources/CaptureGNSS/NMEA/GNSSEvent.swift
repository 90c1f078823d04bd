package import CaptureCore

/// What the NMEA and gpsd pipelines report as input comes in.
package enum GNSSEvent: Sendable, Equatable {
    /// A complete epoch with a valid fix.
    case fix(Fix)
    /// Fix acquired or lost (see ``FixLossTracker``).
    case transition(FixTransition)
}
