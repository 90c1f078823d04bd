import CaptureCore

// A fix is never stored outside its measurement's start and stop (issue 41, item 6). A live
// receiver's fixes carry GNSS time, the events the host clock. Until the host clock is judged
// (``GNSSClock/judged``), a fix older than its track's start is either on a host clock that runs
// ahead (a board without a real-time clock, days off until NTP answers) or stale (bytes left in
// a tty buffer from before the source opened). It waits: once a correction puts the track on
// GNSS time it goes in, judged against the moved start; once the host clock is judged right, or
// the policy leaves it alone, it is dropped, counted with `droppedWhilePaused`.
extension RecorderStateMachine {
    /// At most this many fixes wait for the clock; beyond, the oldest is dropped, counted: a
    /// receiver whose times never agree does not fill memory.
    static let waitingForClockLimit = 4 * GNSSClock.window

    /// Whether a correction may still come: the policy allows one and the clock is not judged.
    var clockMayCorrect: Bool {
        (gnssTime == .always || (gnssTime == .auto && !hostSynchronized)) && !clock.judged
    }

    /// Whether `sample`, a live receiver's fix older than the track's start while the events are
    /// on the host clock, stays out of the measurement: it waits for the clock while a
    /// correction may come, else it is dropped, counted.
    mutating func waitsForClock(_ sample: Sample, from index: Int, arrived: Int64) -> Bool {
        guard sources[index].clock == .gnss, correction == nil, case .fix(let fix) = sample, fix.timestamp < trackStart,
            engine.lifecycle.state.phase == .capturing
        else { return false }
        guard clockMayCorrect else {
            droppedBeforeTrack += 1
            return true
        }
        waitingForClock.append(.init(sample: sample, source: index, arrived: arrived))
        if waitingForClock.count > Self.waitingForClockLimit {
            waitingForClock.removeFirst()
            droppedBeforeTrack += 1
        }
        return true
    }

    /// Once a correction came or none can: the fixes that waited go in, in order, each judged
    /// against the track's start as it now is (on GNSS time with a correction).
    mutating func releaseWaitingForClock(traced: inout [TraceRecord], actions: inout [Action]) {
        guard !waitingForClock.isEmpty, correction != nil || !clockMayCorrect else { return }
        let waiting = waitingForClock
        waitingForClock = []
        for held in waiting {
            ingest(held.sample, from: held.source, arrived: held.arrived, traced: &traced, actions: &actions, observed: true)
        }
    }

    /// A new measurement begins: fixes that waited for the clock were older than the last one's
    /// start, so older than its own.
    mutating func dropWaitingForClock() {
        droppedBeforeTrack += waitingForClock.count
        waitingForClock = []
    }
}
