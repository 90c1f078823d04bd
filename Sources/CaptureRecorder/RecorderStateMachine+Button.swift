package import CaptureCore
package import CaptureSensors

// The rider's inputs: the button (`button.*`), where a short press marks the moment and a long one
// ends the ride under way or begins one, and the same asked over the control socket (the page).
extension RecorderStateMachine {
    /// A press of the button on `device`, decided by ``ButtonDecoder`` (its time on the host
    /// clock); `now` is when it reached the recorder.
    package mutating func pressed(_ press: ButtonPress, device: String, now: Int64) -> [Action] {
        switch press {
        case .short(let time): mark(at: time, by: "button " + device)
        case .long(let time): longPress(at: time, device: device, now: now)
        }
    }

    /// `mark` over the control socket: a marker now, by `source` (`page`).
    package mutating func markRequested(at now: Int64, by source: String) -> CommandResult {
        if case .finished(_, let failure?) = state { return .failed(failure) }
        guard case .recording = state else { return .refused(.notOpen(state: engine.lifecycle.state)) }
        return .applied(mark(at: now, by: source), outcome: nil)
    }

    /// `begin` over the control socket: with `ride.detect: auto` and armed, a ride begins as by a
    /// long press (from the pre-roll). Refused while a ride is under way, and without ride
    /// detection (`capture start` begins a measurement there).
    package mutating func beginRequested(at now: Int64) -> CommandResult {
        if case .finished(_, let failure?) = state { return .failed(failure) }
        guard ride.settings.detect == .auto, case .armed = state else {
            return .refused(.alreadyStarted(state: engine.lifecycle.state))
        }
        return .applied(beginRide(at: now, by: .command), outcome: nil)
    }

    /// A marker at `time` (host clock) in the measurement under way, placed at the last fix;
    /// nothing while armed or finished (there is no ride to hold it). Written to the journal at
    /// once (durable, whatever the database is doing), or once the ride's begin has an id.
    mutating func mark(at time: Int64, by source: String) -> [Action] {
        guard case .recording(let id) = state else { return [] }
        let marker = Marker(time: time + timeBase.offset, near: lastFix, source: source)
        guard id != 0 else {
            heldMarkers.append(marker)
            return []
        }
        return [.journal(.marker(marker), at: marker.time)]
    }

    /// The held markers' journal lines, once the measurement has an id.
    mutating func takeHeldMarkers() -> [Action] {
        defer { heldMarkers = [] }
        return heldMarkers.map { .journal(.marker($0), at: $0.time) }
    }

    /// A long press: with `ride.detect: auto` it ends the ride under way or, armed, begins one
    /// (from the pre-roll, as motion would; the ride rules then go on as for any ride). Without
    /// ride detection it ends the measurement, as `capture stop` does.
    private mutating func longPress(at time: Int64, device: String, now: Int64) -> [Action] {
        guard ride.settings.detect == .auto else {
            guard case .recording = state, case .applied(let actions, _) = command(.stop, at: time, by: .button(device)) else {
                return []
            }
            return actions
        }
        switch state {
        case .armed: return beginRide(at: now, by: .button)
        case .recording: return endRide(at: time + timeBase.offset, by: .button)
        default: return []
        }
    }
}
