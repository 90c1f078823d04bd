package import CaptureCore
package import CaptureStorage

// A recorder that starts after its predecessor died (a power cut): the interrupted measurement is
// continued on a new track or finished where its committed data ends. Its recovery is staged
// after what the dead recorder left in the flush log and goes in with them, in order, once no
// other process holds the database (``StagedCommits/init(store:directory:)``).
extension RecorderStateMachine {
    /// An interrupted measurement as the store and its recorder's flush log have it, for
    /// ``recover(_:at:)`` and ``endInterrupted(_:at:)``.
    package struct Interrupted: Sendable, Equatable {
        package var id: Int64
        /// Its start, on the clock it was stored on (GNSS time once corrected).
        package var startTime: Int64
        package var lifecycle: Lifecycle
        /// Its last committed sample or event (else its start).
        package var committedEnd: Int64
        /// The correction an earlier recorder applied, if any.
        package var correction: Int64?
        /// How far its committed fixes came (with `ride.detect: auto`, what its ride is judged by).
        package var travel: RideTravel
        /// Whether it continues a ride that reached its size or duration limit (begun by size):
        /// part of a ride that moved, never discarded for its own distance.
        package var continued: Bool
        /// Whether its journal says the board reported under-voltage: counted once already.
        package var sawUnderVoltage = false

        package init(
            id: Int64, startTime: Int64, lifecycle: Lifecycle, committedEnd: Int64, correction: Int64?,
            travel: RideTravel = RideTravel(), continued: Bool = false
        ) {
            self.id = id
            self.startTime = startTime
            self.lifecycle = lifecycle
            self.committedEnd = committedEnd
            self.correction = correction
            self.travel = travel
            self.continued = continued
        }

        /// The open measurement (and its sources) once `records`, flush-log records the
        /// database has not taken yet, are applied in order over `stored`, the database's open
        /// measurement: what a recorder that starts while another process holds the database
        /// finishes or continues. A record's stop (a `stop` command, a ride's end) leaves none
        /// open, a `begin` step opens its measurement, samples and events move its committed
        /// end, fixes its travel, events its lifecycle, a move onto GNSS time its times (all by the correction: a
        /// fix's own time stays, so then the end is off by the host clock's error at most).
        package static func after(
            _ records: [FlushLog.Record], stored: (Interrupted, sources: String)?
        ) -> (Interrupted, sources: String)? {
            var open = stored
            for record in records {
                let flush = record.flush.flush
                let end = record.flush.lastTime
                if case .begin(let sources, _)? = record.steps.first,
                    let start = flush.events.first(where: { $0.type == .lifecycleStart })
                {
                    let lifecycle = Lifecycle(restoring: flush.state, modality: flush.modality)
                    var begun = Interrupted(
                        id: record.measurement, startTime: start.timestamp, lifecycle: lifecycle,
                        committedEnd: end ?? start.timestamp, correction: nil,
                        continued: record.steps.contains(.countRide(.begunBySize)))
                    begun.travel.pass(flush.fixes)
                    open = (begun, sources)
                } else if case (var current, let sources)? = open, current.id == record.measurement {
                    if let end { current.committedEnd = max(current.committedEnd, end) }
                    current.travel.pass(flush.fixes)
                    if !flush.events.isEmpty { current.lifecycle = Lifecycle(restoring: flush.state, modality: flush.modality) }
                    open = (current, sources)
                } else {
                    continue
                }
                for step in record.steps {
                    guard case (var current, let sources)? = open else { break }
                    switch step {
                    case .discard: open = nil
                    case .moveToGNSSTime(let correction, _):
                        current.committedEnd += correction
                        current.startTime += correction
                        current.correction = correction
                        open = (current, sources)
                    case .recordClockCorrection(let correction):
                        current.correction = correction
                        open = (current, sources)
                    case .begin, .countRide: break
                    }
                }
                if case .finished? = open?.0.lifecycle.state { open = nil }
            }
            return open
        }
    }

    /// Continues a measurement whose recorder died: an implicit pause where its committed data
    /// ends (if it was capturing), then a resume at `now`, on a new track; both staged after
    /// what its recorder left in the flush log and committed as a command's events are, so a
    /// database another process holds keeps them waiting there. When a source drives
    /// the lifecycle (a trace), it continues after the committed data, held for the time the
    /// recorder was down; a measurement the trace had paused stays paused until it resumes it.
    package mutating func recover(_ open: Interrupted, at now: Int64) throws(LifecycleError) -> [Action] {
        state = .recording(measurement: open.id)
        continuing = true
        // What an earlier recorder applied goes on: the host clock is likely still as wrong.
        timeBase.continuing(open.correction)
        underVoltageSeen = open.sawUnderVoltage
        let host = timeBase.offset
        measurementStart = open.startTime - host
        engine = Recording(lifecycle: open.lifecycle)
        ride.modality = open.lifecycle.modality ?? .unknown
        ride.since = now
        // The ride goes on from where its committed fixes stand: its end judges the whole ride.
        ride.travel = open.travel
        ride.continued = open.continued
        // Its motion goes on from there too: a first fix far from the last committed one is the
        // way the bike came while the box was off or its receiver dark, movement, stored and
        // counted (the travel counts it); with no anchor it would stand, be held as a still
        // tail and dropped at the ride's end, and a ride of a few stored metres be kept.
        ride.detector = MotionDetector(pace: ride.settings.pace)
        if let last = open.travel.last { ride.detector.stands(at: last) }
        let end = open.committedEnd
        var actions: [Action] = [.journal(.recovered(committedUntil: end, sources: sources.map(\.name)), at: nil)]
        let wasCapturing = open.lifecycle.state.phase == .capturing
        if wasCapturing {
            actions.append(.stage(try engine.apply(.pause, at: end)))
        }
        let resumedAt = max(now + host, end)
        let driving = sources.contains(where: \.drivesLifecycle)
        if wasCapturing || !driving {
            actions.append(.stage(try engine.apply(.resume, at: resumedAt)))
            trackStart = resumedAt
        }
        // What the dead recorder left goes in before them, as soon as no other process holds the store.
        actions.append(commitStagedNow)
        if driving {
            // A trace plays on the host clock; what it hands over is moved as it arrives.
            actions.append(
                .continueSources(
                    measurementStart: open.startTime - host, committedEnd: end - host, resumedAt: resumedAt - host))
        }
        return actions
    }

    /// Finishes a measurement whose recorder died, as a power cut ends a ride: stopped where its
    /// committed data ends (`open.committedEnd`, counting what its recorder left in the flush
    /// log) and counted as ended by power, in one record staged after those; committed as a
    /// command's events are. With `ride.detect: auto` it is judged as any ride's end is
    /// (``RideRules/discards(_:continued:)``): a ride that moved less than `ride.min_distance`
    /// in total is discarded. Nothing else changes: a new measurement or the ride rules follow.
    package mutating func endInterrupted(_ open: Interrupted, at now: Int64) throws(LifecycleError) -> [Action] {
        var interrupted = Recording(lifecycle: open.lifecycle)
        let stop = try interrupted.apply(.stop, at: open.committedEnd)
        let discard = ride.discards(open.travel, continued: open.continued)
        return [
            .endInterrupted(stop, measurement: open.id, committedUntil: open.committedEnd, foundAt: now, discard: discard),
            commitStagedNow,
        ]
    }

    /// What an earlier recorder left, as a recorder starts: the records in the flush log the
    /// database has not taken and the ids it reserved (read, not written: ``Store/reservedMeasurementIDs()``),
    /// which the rides to come begin under while another process holds the database. Ids its
    /// rides began under in the log are taken, though the database still counts them reserved.
    /// Records left mean the database was busy: they wait as a command's events do, tried again
    /// at a flush (``retryDue(at:)``) and before the recorder exits, whatever comes.
    package mutating func leftInLog(_ records: [FlushLog.Record], reserved ids: [Int64]) {
        if !records.isEmpty { waits.events = true }
        for record in records {
            guard case .begin? = record.steps.first else { continue }
            reservations.takenEarlier(record.measurement)
        }
        reserved(ids)
    }
}
