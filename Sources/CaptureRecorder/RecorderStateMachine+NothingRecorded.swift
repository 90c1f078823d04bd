import CaptureCore

// A recording none of whose sources ever delivered a sample: an accelerometer whose buffer the
// kernel refuses, a receiver that is not there, a device that is not readable by the unit's
// user. Finishing such a measurement would deliver an empty ride, and the box would look as
// if it recorded; instead the run ends, the measurement is discarded, and the recorder process
// fails (``RecorderFailure/nothingRecorded(sources:)``, exit 69), which the service manager
// shows and restarts.
extension RecorderStateMachine {
    /// Ends the run when every source has failed and none ever delivered a sample: a
    /// measurement this recorder began (with `ride.detect: off`) is stopped and discarded, never
    /// delivered; a recorder waiting armed just ends. Nothing happens while a source runs or
    /// ended by itself (a trace played out), once any sample came, or for a measurement
    /// continued after a crash (it holds what the earlier recorder recorded).
    mutating func endingWithNothingRecorded(at now: Int64) -> [Action] {
        guard !sourceStates.isEmpty, sourceStates.allSatisfy({ $0.state == .failed }), delivered.isEmpty, !continuing
        else { return [] }
        var actions: [Action] = []
        switch state {
        case .armed: break
        case .recording where ride.settings.detect != .auto:
            guard let stop = try? engine.apply(.stop, at: max(now + timeBase.offset, measurementStart)) else { return [] }
            actions = [.discardEmpty(stop), commitStagedNow]
        default: return []
        }
        nothingRecorded = sourceStates.map { "\($0.name): \($0.error ?? "failed")" }
        return actions + finish(failure: nil)
    }
}

/// How a recording that began went wrong after the recorder said it was ready.
package enum RecorderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every source failed before any delivered a sample; each is named with its error. The
    /// measurement (if one had begun) was discarded, so nothing empty is delivered.
    case nothingRecorded(sources: [String])

    package var description: String {
        switch self {
        case .nothingRecorded(let sources):
            "nothing was recorded: every source failed before its first sample (\(sources.joined(separator: "; "))); "
                + "the measurement was discarded, not delivered"
        }
    }
}
