public import CaptureCore

/// Something a live source tells the recorder besides samples: losses and GNSS fix changes.
public enum SourceNote: Sendable, Equatable {
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

/// A source that also reports ``SourceNote``s while it runs.
public protocol ReportingSampleSource: SampleSource {
    /// Like ``SampleSource/run(deliver:shouldStop:)``, also calling `note` with losses and states.
    func run(
        deliver: @Sendable (Sample) -> Void, note: @Sendable (SourceNote) -> Void, shouldStop: @Sendable () -> Bool
    ) throws

    /// Like ``run(deliver:note:shouldStop:)``, stopped by `stop`: a source that waits in
    /// `poll(2)` puts ``StopSignal/descriptor`` in its poll set and needs no timeout to notice.
    /// `deliverAll` takes the samples of one read at once (in order), so that the recorder locks
    /// once per read, not once per sample.
    func run(deliverAll: @Sendable ([Sample]) -> Void, note: @Sendable (SourceNote) -> Void, stop: StopSignal) throws
}

extension ReportingSampleSource {
    /// Asks `stop` whenever the source would ask `shouldStop` (sources that do not wait in poll).
    public func run(deliverAll: @Sendable ([Sample]) -> Void, note: @Sendable (SourceNote) -> Void, stop: StopSignal) throws {
        try run(deliver: { deliverAll([$0]) }, note: note, shouldStop: { stop.isStopped })
    }

    /// Runs without anyone listening to notes.
    public func run(deliver: @Sendable (Sample) -> Void, shouldStop: @Sendable () -> Bool) throws {
        try run(deliver: deliver, note: { _ in }, shouldStop: shouldStop)
    }
}
