package import CaptureCore
package import CaptureSensors
package import CaptureStorage

// Lifecycle commands, and what the sources report: a source's mark, note, failure or end.
extension RecorderStateMachine {
    // MARK: - Commands

    /// A lifecycle command at `time` (host clock, Unix ms): commits what came before it, then its
    /// events. A source's mark the lifecycle refuses (a `pause` after `capture pause`) is left out
    /// and noted on the source.
    package mutating func command(_ command: LifecycleCommand, at time: Int64, by origin: Origin) -> CommandResult {
        if case .finished(_, let failure?) = state { return .failed(failure) }
        if command == .stop, origin == .control, ride.settings.detect == .auto { return stopRide(at: time) }
        if case .modality(let next) = command, state == .armed { return armedModality(next) }
        var time = time
        let originName: String
        switch origin {
        case .control:
            time += timeBase.offset
            originName = "capture " + command.verb
        case .button(let device):
            time += timeBase.offset
            originName = "button " + device
        case .source(let index):
            guard case .recording = state else { return .applied([], outcome: nil) }
            if sources[index].clock == .host, let correction = timeBase.correction { time += correction }
            originName = sources[index].name
        }
        if command == .stop || command == .pause { time = trackEnd(at: time) }
        let modalityBefore = engine.lifecycle.modality
        let flush: Flush
        do {
            flush = try engine.apply(command, at: time)
        } catch {
            if case .source(let index) = origin {
                sourceStates[index].note = "left out its \(command.verb) mark: \(error)"
            }
            return .refused(error)
        }
        if command.beginsTrack { trackStart = time }
        // Durable once staged; in the database as soon as no other process holds it.
        var actions: [Action] = [
            .stage(flush), commitStagedNow, .trace([.mark(command, at: time)], flush: true),
            .journal(.command(command, by: originName), at: time),
        ]
        if command == .stop { actions += finish(failure: nil) }
        var outcome: LifecycleOutcome?
        if case .modality(let modality) = command {
            // The lifecycle ignores the modality in force; say so rather than "is now".
            outcome = modality == modalityBefore ? .unchanged : .changed
        }
        return .applied(actions, outcome: outcome)
    }

    // MARK: - Sources

    /// The source at `index` returned: it has nothing more to give.
    package mutating func sourceEnded(_ index: Int) {
        sourceStates[index].state = .ended
    }

    /// The source at `index` failed for good (a device unplugged), at `now`; the others go on.
    /// The journal says so, so that `capture status` can tell why a recording whose every source
    /// went recorded nothing more (``RecordingEnd``). A source that drives the measurement (a
    /// trace broken mid-file) stops it at `now`, as its end would: nothing would ever stop it
    /// otherwise, and the next `capture replay` or `start` would be refused. When it was the last
    /// and no source ever delivered a sample, the run ends at once (``endingWithNothingRecorded(at:)``).
    package mutating func sourceFailed(_ index: Int, error: String, at now: Int64) -> [Action] {
        sourceStates[index].state = .failed
        sourceStates[index].error = error
        let failed: [Action] = [.journal(.sourceFailed(source: sourceStates[index].name, error: error), at: nil)]
        if sources[index].drivesLifecycle, case .applied(let stop, _) = command(.stop, at: now, by: .source(index)) {
            return failed + stop
        }
        return failed + endingWithNothingRecorded(at: now)
    }

    /// Something the source at `index` told besides samples; a line in the journal when it says
    /// something new.
    package mutating func note(_ note: SourceNote, from index: Int) -> [Action] {
        switch note {
        case .lost(let count, let reason):
            sourceStates[index].lost = (sourceStates[index].lost ?? 0) + count
            sourceStates[index].note = reason
        case .skipped(let count): sourceStates[index].skipped = (sourceStates[index].skipped ?? 0) + count
        case .gnss(let state): sourceStates[index].gnss = state
        case .info(let text): sourceStates[index].note = text
        }
        let line: String? =
            switch note {
            case .lost(_, let reason): "lost samples: \(reason)"
            case .gnss(let state): "gnss: \(state)"
            case .info(let text): text
            case .skipped: nil
            }
        guard let line, journaled[index] != line else { return [] }
        journaled[index] = line
        let lostSoFar: Int? = if case .lost = note { sourceStates[index].lost ?? 0 } else { nil }
        return [.journal(.note(source: sourceStates[index].name, line: line, lostSoFar: lostSoFar), at: nil)]
    }

    mutating func finish(failure: StoreError?) -> [Action] {
        state = .finished(measurement: measurement, failure: failure)
        var lost: [String: Int] = [:]
        for state in sourceStates { if let count = state.lost { lost[state.name] = count } }
        return [.finish(captured: captured, lost: lost)]
    }
}
