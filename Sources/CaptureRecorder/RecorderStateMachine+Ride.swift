package import CaptureCore
package import CaptureStorage

/// A ride rule's event, as the measurement's journal (`recorder.jsonl`) records it.
package enum RideEvent: Sendable, Equatable {
    /// Why a ride began.
    package enum Begin: String, Sendable, Equatable {
        /// Motion was detected while armed.
        case motion
        /// The ride before reached `ride.max_duration` and goes on as this one.
        case size
        /// The rider held the button (`button.long_press`) while armed.
        case button
        /// Asked over the control socket while armed (the page's "Begin ride").
        case command
    }

    /// Why a ride ended.
    package enum End: String, Sendable, Equatable {
        /// Standing still for `ride.end_after_still`.
        case motion
        /// `capture stop`, or the recorder stopped (SIGTERM).
        case command
        /// `ride.max_duration`: continued as a new measurement.
        case size
        /// The rider held the button (`button.long_press`).
        case button
        /// The store was full and nothing in it may go: the recorder waits armed for room
        /// (``RecorderStateMachine/outOfRoom(at:)``).
        case fullStore = "full_store"
    }

    /// The recorder waits for motion.
    case armed
    /// A ride began; its samples from `preRollFrom` (motion: the pre-roll) are in it.
    case begun(by: Begin, preRollFrom: Int64)
    /// The device stands (the end of the ride is `ride.end_after_still` away).
    case still
    /// The device moves again after standing this long, ms.
    case moving(stillFor: Int64)
    /// The ride ended having moved `distance` metres; `discarded` when below `ride.min_distance`.
    case ended(by: End, distance: Double, discarded: Bool)
}

/// Where the ride rules stand, for `capture status`. Field names are the `--json` output's.
package struct RideStatus: Codable, Sendable, Equatable {
    package enum State: String, Codable, Sendable, Equatable {
        /// Waiting for motion; nothing is written.
        case armed
        /// A ride is being recorded and the device moves.
        case recording
        /// A ride is being recorded and the device stands (``RideStatus/since``).
        case still
        /// The store is full of what may not go (rides the collector has not taken, with
        /// `retention.drop_unsent: never`): armed, but no ride begins until there is room
        /// again (``RideStatus/reason``).
        case waitingForRoom = "waiting-for-room"
    }

    package var state: State
    /// Since when (Unix ms, host clock).
    package var since: Int64
    /// Metres travelled in the ride so far (while recording).
    package var distance: Double?
    /// The measurement of the ride that ended last, if one did since the recorder started.
    package var lastRide: Int64?
    /// While waiting for room: why, `store-full` (``RecordingEnd/Kind/storeFull``).
    package var reason: String?
}

/// What the ride rules (`ride.detect: auto`) remember besides the recording.
struct RideRules: Sendable {
    struct Held: Sendable {
        var sample: Sample
        var source: Int
        var arrived: Int64
    }

    var settings: RideSettings
    /// Each ride's initial modality.
    var modality: Modality = .unknown
    var detector: MotionDetector
    /// While armed: what arrived during the last ``RideSettings/preRoll``, oldest first.
    var preRoll: [Held] = []
    /// Since when (host clock) the state stands: armed, the ride began, or standing still.
    var since: Int64 = 0
    /// While recording: since when the device stands; what comes is held back meanwhile.
    var stillSince: Int64?
    /// Whether the ride under way began by motion (its `ride_begun` line is due).
    var begunBy: RideEvent.Begin?
    var preRollFrom: Int64 = 0
    /// Whether the measurement under way continues one that reached its size or duration limit:
    /// then it is part of a ride that moved, never discarded for its own distance.
    var continued = false
    /// How far the ride has come, across every interruption (a continued ride starts from its
    /// committed fixes: ``RecorderStateMachine/recover(_:at:)``).
    var travel = RideTravel()
    /// ``travel`` before the first fix still pending (not yet staged): what the ride came once
    /// its end drops a still tail that reaches back to that fix.
    var travelBeforePending = RideTravel()
    var capturedAtBegin = SampleCounts()
    var lastRide: Int64?
    /// Where the last ride ended (its stop, events' clock): the next one begins no earlier, its
    /// pre-roll cut there, so that two rides never overlap.
    var lastEnd: Int64 = .min

    init(settings: RideSettings) {
        self.settings = settings
        detector = MotionDetector(pace: settings.pace)
    }

    /// The journal line of a ride begun by motion, once its measurement has an id.
    mutating func begun() -> [RecorderStateMachine.Action] {
        guard let begin = begunBy else { return [] }
        begunBy = nil
        return [.journal(.ride(.begun(by: begin, preRollFrom: preRollFrom)), at: nil)]
    }

    /// Whether a ride that came `travel` is discarded as still at its end: only with
    /// `ride.detect: auto`, only a whole ride (`travel` counts every part before an
    /// interruption) that moved less than `ride.min_distance`, and never one that `continued`
    /// a ride at its size limit (a part of a ride that moved).
    func discards(_ travel: RideTravel, continued: Bool) -> Bool {
        settings.detect == .auto && !continued && travel.metres < settings.minDistance
    }

    mutating func trimPreRoll(before time: Int64) {
        guard let keep = preRoll.firstIndex(where: { $0.arrived >= time }) else {
            preRoll.removeAll(keepingCapacity: true)
            return
        }
        if keep > 0 { preRoll.removeSubrange(0..<keep) }
    }
}

extension RecorderStateMachine.Action {
    /// Whether this ends a ride (then nothing more of it is staged).
    var endsRide: Bool {
        if case .endRide = self { true } else { false }
    }
}

extension RecorderStateMachine {
    // MARK: - Armed

    /// `ride.detect: auto`: waits for motion instead of starting a measurement at once;
    /// `modality` is each ride's. Returns the reservation of the rides' ids.
    @discardableResult
    package mutating func arm(modality: Modality, at now: Int64) -> [Action] {
        state = .armed
        ride.settings.detect = .auto
        ride.since = now
        ride.modality = modality
        return reservationDue(at: now)
    }

    /// While armed: the samples go to the pre-roll (and a receiver's fixes to the clock); motion
    /// begins a ride, judged read by read, so that where it begins does not depend on how many
    /// reads waited in the inbox. Returns with the read that began it; ``take(_:dropped:capacity:from:)``
    /// records the rest.
    mutating func takeArmed(_ read: (samples: [Sample], arrived: Int64), from index: Int) -> [Action] {
        for sample in read.samples {
            ride.detector.observe(sample, at: read.arrived)
            if sources[index].clock == .gnss, case .fix(let fix) = sample { correctClock(by: fix, arrived: read.arrived) }
            ride.preRoll.append(.init(sample: sample, source: index, arrived: read.arrived))
        }
        let oldest = ride.preRoll.first?.arrived ?? read.arrived
        // No ride begins while the store has no room for it (``outOfRoom(at:)``).
        let moving = ride.detector.verdict(at: read.arrived) == .moving && room.since == nil
        // Trimmed at a ride's begin, else once it holds twice its length (not at every read).
        if moving || read.arrived - oldest > 2 * ride.settings.preRoll { ride.trimPreRoll(before: read.arrived - ride.settings.preRoll) }
        return moving ? beginRide(at: read.arrived) : []
    }

    /// Armed, a flush interval passed: the pre-roll is trimmed; the end of a ride that waits
    /// for a busy store is tried again.
    mutating func armedFlushDue(at now: Int64) -> [Action] {
        // From the newest held read, not now: a read still on its way keeps its pre-roll.
        ride.trimPreRoll(before: min(now, ride.preRoll.last?.arrived ?? now) - ride.settings.preRoll)
        return retryDue(at: now) + roomCheckDue(at: now)
    }

    /// Notes a fix against the host clock while armed: nothing is stored to move, so a
    /// correction found now only applies to what comes (and is recorded with the next ride).
    private mutating func correctClock(by fix: Fix, arrived: Int64) {
        _ = timeBase.observe(gnss: fix.timestamp, host: arrived)
    }

    // MARK: - Beginning and ending

    /// Motion while armed: a new measurement from the oldest sample of the pre-roll, with the
    /// pre-roll in it.
    mutating func beginRide(at now: Int64, by reason: RideEvent.Begin = .motion) -> [Action] {
        let shift = timeBase.offset
        // The start is at or before every held sample on the events' clock, so none falls
        // before the track.
        var start = now - ride.settings.preRoll + shift
        for held in ride.preRoll {
            switch sources[held.source].clock {
            case .host: start = min(start, held.sample.timestamp + shift)
            case .gnss where timeBase.correction != nil || timeBase.agrees(gnss: held.sample.timestamp, with: start):
                start = min(start, held.sample.timestamp)
            default: break
            }
        }
        // Motion soon after `capture stop`: the pre-roll does not reach back into the ride before.
        start = max(start, ride.lastEnd)
        let held = ride.preRoll
        ride.preRoll = []
        ride.begunBy = reason
        ride.preRollFrom = start
        var actions = begin(at: start, by: reason, now: now)
        var traced: [TraceRecord] = []
        for entry in held {
            ingest(entry.sample, from: entry.source, arrived: entry.arrived, traced: &traced, actions: &actions)
        }
        if !traced.isEmpty { actions.append(.trace(traced, flush: false)) }
        ride.since = now
        return actions
    }

    /// A new measurement at `time` (events' clock) in the ride's modality: under a reserved id
    /// if one is (begun in the flush log, then committed with what is staged: a busy store keeps
    /// it waiting there), else begun by the store at once.
    mutating func begin(at time: Int64, by reason: RideEvent.Begin, now: Int64) -> [Action] {
        engine = Recording()
        underVoltageSeen = false
        // Markers held for a ride whose begin never reached the store went with it.
        heldMarkers = []
        // A new lifecycle takes a start at any time.
        guard let flush = try? engine.apply(.start(ride.modality), at: time) else { return [] }
        trackStart = time
        measurementStart = time - timeBase.offset
        let id = reservations.take()
        state = .recording(measurement: id ?? 0)
        ride.stillSince = nil
        ride.travel = RideTravel()
        ride.capturedAtBegin = captured
        ride.continued = reason == .size
        var actions: [Action] = [.beginRide(flush, sources: sources.map(\.name), by: reason, id: id)]
        if let correction = timeBase.correction { actions.append(.recordClockCorrection(correction)) }
        guard let id else { return actions }
        return actions + began(measurement: id, at: now) + [commitStagedNow] + reservationDue(at: now)
    }

    /// The ride rules after samples arrived or a flush interval passed, while recording: still
    /// or moving, and the ride's end after `ride.end_after_still` of standing.
    mutating func rideCheck(at now: Int64) -> [Action] {
        guard ride.settings.detect == .auto, case .recording(let id) = state, id != 0 || ride.begunBy == nil else { return [] }
        var actions: [Action] = []
        // No source with a say (a receiver without a fix, no accelerometer) is no motion.
        if ride.detector.verdict(at: now) == .moving {
            if let since = ride.stillSince {
                ride.stillSince = nil
                actions.append(.journal(.ride(.moving(stillFor: now - since)), at: nil))
            }
        } else if ride.stillSince == nil {
            ride.stillSince = now
            actions.append(.journal(.ride(.still), at: nil))
        }
        if let since = ride.stillSince, now - since >= ride.settings.endAfterStill {
            return actions + endRide(at: since + timeBase.offset, by: .motion)
        }
        return actions
    }

    /// Ends the ride under way at `time` (events' clock) and arms. Ended by motion, what was
    /// held back while standing is the still tail, dropped; otherwise it goes in. Its stop is
    /// staged with its count (and deletion) and committed with what is staged: a busy store
    /// keeps them waiting in the flush log (``storeFailed(_:during:)``) while the recorder goes on.
    mutating func endRide(at time: Int64, by end: RideEvent.End) -> [Action] {
        guard case .recording(let id) = state else { return [] }
        if waits.begin != nil {
            // Its begin never reached the store (another process held it all along): nothing of
            // it is durable, and there is nothing to stop.
            waits.begin = nil
            engine = Recording()
            trackStart = .min
            ride.stillSince = nil
            ride.detector = MotionDetector(pace: ride.settings.pace)
            ride.since = time - timeBase.offset
            state = .armed
            return []
        }
        var stop = max(time, trackStart)
        // The still tail: what was taken from where still was seen (held back since).
        if end == .motion { dropStillTail(from: stop) }
        stop = trackEnd(at: stop)
        guard let flush = try? engine.apply(.stop, at: stop) else { return [] }
        let discard = end != .size && ride.discards(ride.travel, continued: ride.continued)
        let rideCaptured = rideCounts
        let actions: [Action] = [
            .trace([.mark(.stop, at: stop)], flush: true),
            .journal(.ride(.ended(by: end, distance: ride.travel.metres, discarded: discard)), at: stop),
            .journal(.ride(.armed), at: nil),
            .endRide(flush, captured: rideCaptured, discard: discard, by: end), commitStagedNow,
        ]
        ride.lastRide = id
        ride.lastEnd = stop
        ride.stillSince = nil
        // Armed anew: motion must be seen afresh (a verdict of the ride's last moments is not).
        ride.detector = MotionDetector(pace: ride.settings.pace)
        ride.since = time - timeBase.offset
        engine = Recording()
        trackStart = .min
        state = .armed
        return actions
    }

    /// A mark that ends the track at `time` (events' clock), at or after the newest fix kept
    /// when that fix's time agrees with it (``TimeBase/agrees(gnss:with:)``): a receiver's time
    /// may run a little ahead of a host clock taken to be right.
    func trackEnd(at time: Int64) -> Int64 {
        guard let newest = ride.travel.last?.timestamp, newest > time, timeBase.agrees(gnss: newest, with: time) else { return time }
        return newest
    }

    /// Drops the still tail, what was taken from `stop` on, and takes its fixes out of the
    /// ride's way: the ride is judged by the way its stored fixes came. A fix reached in the
    /// dark and then stood at, or a standing receiver's wander, adds nothing a ride keeps.
    private mutating func dropStillTail(from stop: Int64) {
        let dropped = engine.dropPending(from: stop)
        guard !dropped.fixes.isEmpty else { return }
        var kept = ride.travelBeforePending
        kept.pass(engine.pendingFixes)
        ride.travel = kept
    }

    /// `capture stop` with `ride.detect: auto`: the ride ends, the recorder goes on armed.
    mutating func stopRide(at time: Int64) -> CommandResult {
        switch state {
        case .recording: return .applied(endRide(at: time + timeBase.offset, by: .command), outcome: nil)
        case .armed: return .refused(.notOpen(state: engine.lifecycle.state))
        default: return .refused(.notOpen(state: engine.lifecycle.state))
        }
    }

    /// `capture modality` while armed: the next ride's modality.
    mutating func armedModality(_ modality: Modality) -> CommandResult {
        defer { ride.modality = modality }
        return .applied([], outcome: modality == ride.modality ? .unchanged : .changed)
    }

    /// The recorder is told to end (SIGTERM, `systemctl stop`): a ride under way ends as by
    /// `capture stop`, then the run finishes.
    package mutating func shutdown(at time: Int64) -> [Action] {
        switch state {
        case .armed: return finish(failure: nil)
        case .recording where ride.settings.detect == .auto:
            return endRide(at: time + timeBase.offset, by: .command) + finish(failure: nil)
        default:
            guard case .applied(let actions, _) = command(.stop, at: time, by: .control) else { return [] }
            return actions
        }
    }

    /// Where the ride rules stand, with `ride.detect: auto`.
    var rideStatus: RideStatus? {
        guard ride.settings.detect == .auto else { return nil }
        switch state {
        case .armed:
            if let since = room.since {
                var status = RideStatus(state: .waitingForRoom, since: since, lastRide: ride.lastRide)
                status.reason = RecordingEnd.Kind.storeFull.rawValue
                return status
            }
            return RideStatus(state: .armed, since: ride.since, lastRide: ride.lastRide)
        case .recording:
            if let still = ride.stillSince {
                return RideStatus(state: .still, since: still, distance: ride.travel.metres, lastRide: ride.lastRide)
            }
            return RideStatus(state: .recording, since: ride.since, distance: ride.travel.metres, lastRide: ride.lastRide)
        default: return nil
        }
    }
}
