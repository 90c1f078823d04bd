import CaptureRecorder

/// What a lifecycle command prints, for a person (`--json` prints the report itself).
extension LifecycleReport {
    /// `measurement 3 paused (paused, track 1)`, with `verb` saying what the command did.
    func line(_ verb: String) -> String {
        "measurement \(measurement) \(verb) (\(state.rawValue), track \(track))"
    }

    /// What `capture start` prints: the new measurement's id, or, while the recorder waits for
    /// motion (`ride.detect: auto`), that it does.
    var startLine: String {
        ride?.state == .armed ? "armed: recorder \(pid ?? 0) begins a ride when motion does" : "\(measurement)"
    }

    /// The warning for flushes given up on a full store (``givenUp``), if any were.
    var givenUpWarning: String? {
        givenUp.map {
            "\($0) flush(es) of samples its recorder had staged did not fit into the full store and were given up"
        }
    }
}
