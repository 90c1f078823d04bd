import CaptureCore
import Foundation

extension RecorderControl {
    /// What `capture start` in the foreground reports as it goes.
    package enum StartEvent: Sendable {
        /// The interrupted measurement `id` is continued (``start(_:sources:continueInterrupted:foreground:rideEnded:event:)``).
        case continuing(Int64)
        /// Capturing has begun.
        case capturing(LifecycleReport)
        /// The recorder waits armed for motion (`ride.detect: auto`); no measurement yet.
        case armed(LifecycleReport)
    }

    /// `capture start`: a new measurement with `configuration`, or with `continueInterrupted`
    /// the interrupted one continued as `resume` does, when `configuration.ride` says it is
    /// recent enough (``interruptedMeasurement(continuing:now:)``; an older one is finished and a
    /// new one begins). `sources` picks the new measurement's sources; it is not asked when an
    /// interrupted measurement continues with its own.
    ///
    /// In the background: returns the report once capturing has begun. In the foreground: runs
    /// the recorder in this process until the measurement ends, telling `event` what happens,
    /// and returns nil.
    package func start(
        _ configuration: RecorderConfiguration, sources: () throws -> [String], continueInterrupted: Bool, foreground: Bool,
        rideEnded: @escaping @Sendable (Int64) -> Void, event: (StartEvent) -> Void
    ) throws -> LifecycleReport? {
        var configuration = configuration
        let pid = ProcessInfo.processInfo.processIdentifier
        // In the foreground (the unit at boot) the recorder itself finishes or continues the
        // interrupted measurement, so that a database another process holds keeps its recovery
        // waiting in the flush log rather than ending the start (interruptedRecovery).
        let interrupted = !continueInterrupted ? nil
            : foreground ? try interruptedRecovery(continuing: configuration.ride)
            : try interruptedMeasurement(continuing: configuration.ride).map { ($0.id, $0.sources, true) }
        if let interrupted, interrupted.continues {
            guard foreground else { return try resume { configuration } }
            event(.continuing(interrupted.id))
            (configuration.sources, configuration.modality, configuration.recordTrace) = (interrupted.sources, nil, nil)
            try RecorderProcess.run(configuration, recover: true, rideEnded: rideEnded) { id in
                let stored = (try? existingStore()).flatMap { try? LifecycleReport(store: $0, id: id, pid: pid) }
                event(.capturing(stored ?? LifecycleReport(measurement: id, state: .capturing, track: 1, modality: nil, pid: pid)))
            }
            return nil
        }
        configuration.sources = try sources()
        guard foreground else { return try start(configuration) }
        // An interrupted measurement too old to continue is finished by the recorder first. Found
        // none, the database may still have one open whose stop waits in the flush log.
        if !continueInterrupted || recorderIsRunning { try refuseIfOpen() }
        let modality = configuration.modality
        try RecorderProcess.run(configuration, endingInterrupted: continueInterrupted, rideEnded: rideEnded) { id in
            event(id == 0 ? .armed(.armed(modality: modality, pid: pid)) : .capturing(LifecycleReport(measurement: id, state: .capturing, track: 1, modality: modality, pid: pid)))
        }
        return nil
    }
}
