package import CaptureCore

/// Something a live source tells the recorder besides samples: losses and GNSS fix changes.
package enum SourceNote: Sendable, Equatable {
    /// `count` samples (or scans, or sentences) were lost or skipped; `reason` says why.
    case lost(Int, reason: String)
    /// `count` inputs of kinds this tool does not use (NMEA GSV, proprietary sentences) were
    /// skipped; not a loss.
    case skipped(Int)
    /// The GNSS fix state is now `state`.
    case gnss(state: GNSSFixState)
    /// A one-line remark for `capture status` (what was chosen, a reconnect).
    case info(String)
}
