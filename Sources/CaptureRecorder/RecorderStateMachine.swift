package import CaptureCore
package import CaptureSensors
package import CaptureStorage

/// What the recorder decides, as one value: it takes events (samples arrived, flush due, a
/// command, a source ended or failed, the store failed, the host clock found off) and returns
/// the actions that carry them out. It has no threads, files or clocks of its own: every time
/// comes in with its event, so each rule is tested event by event (`RecorderStateMachineTests`).
/// ``Recorder`` is its driver: it feeds the events in under a lock and performs the actions, in
/// order, on one thread of its own with no lock held (AsyncHTTPClient's connection pool works
/// the same way).
///
/// Every lifecycle transition has one copy here, whoever asks for it: `capture pause` over the
/// control socket, a trace's `pause` mark, a recovery's implicit pause.
package struct RecorderStateMachine: Sendable {
    /// What the recorder is doing.
    package enum State: Sendable, Equatable {
        /// Sources prepared, no measurement begun or recovered yet.
        case idle
        /// `ride.detect: auto` between rides: the sources are read, the last `ride.pre_roll` is
        /// kept in memory, nothing is written; motion begins a ride (``RideRules``).
        case armed
        /// Recording the measurement with this id (0 while a ride begun by motion with no id
        /// reserved waits for the store's, ``began(measurement:at:)``).
        case recording(measurement: Int64)
        /// The measurement stopped (the one recorded, if any, for the last report), or the
        /// store failed (`failure`); nothing more is taken.
        case finished(measurement: Int64?, failure: StoreError?)
    }

    /// Who gave a lifecycle command.
    package enum Origin: Sendable, Equatable {
        /// A person, over the control socket (or a signal).
        case control
        /// The source at this index (a trace's mark).
        case source(Int)
        /// The rider's button, named by its device.
        case button(String)
    }

    /// What a source is, as far as the decisions go.
    package struct SourceInfo: Sendable, Equatable {
        package var name: String
        package var clock: SourceClock
        package var drivesLifecycle: Bool

        package init(name: String, clock: SourceClock = .host, drivesLifecycle: Bool = false) {
            self.name = name
            self.clock = clock
            self.drivesLifecycle = drivesLifecycle
        }

        package init(_ source: any SampleSource) {
            self.init(name: source.name, clock: source.clock, drivesLifecycle: source.drivesLifecycle)
        }
    }

    /// What the driver does, in the order given.
    package enum Action: Sendable, Equatable {
        /// Begins the measurement in the store with this flush (its `start`), then reports the new
        /// id with ``RecorderStateMachine/began(measurement:at:)``.
        case begin(Flush, sources: [String])
        /// A ride begun by motion (or continuing one at its size limit) under `id`, reserved
        /// (``reserved(_:)``): its measurement begins and is counted in the flush log, durable,
        /// and reaches the database with the next commit. With no id reserved (`nil`): what is
        /// staged is committed, the measurement begun in the store at once, and its id
        /// reported with ``RecorderStateMachine/began(measurement:at:)``.
        case beginRide(Flush, sources: [String], by: RideEvent.Begin, id: Int64?)
        /// The ride has ended: stages its stop (`Flush`) with its count and, with `discard` (it
        /// moved less than `ride.min_distance`), its deletion, in one record; closes its journal
        /// with `captured`; once that record is in the database, hands the ride to delivery. The
        /// recorder goes on, armed.
        case endRide(Flush, captured: SampleCounts, discard: Bool, by: RideEvent.End)
        /// Looks whether the store has room for rides again (making what the retention policy
        /// allows, ``Recorder``), reported with ``RecorderStateMachine/roomChecked(_:at:)``.
        case checkRoom
        /// Reserves measurement ids for rides to come (``Store/reserveMeasurementIDs(keeping:patience:)``),
        /// reported with ``RecorderStateMachine/reserved(_:)``.
        case reserveMeasurementIDs
        /// Stages the stop (`Flush`) of the interrupted measurement `measurement`, found at
        /// `foundAt` by a recorder that starts, with its count (``RideCount/endedByPower``), in
        /// one record after what its recorder left in the flush log; its journal says where its
        /// committed data ends (``RecorderStateMachine/endInterrupted(_:at:)``). With `discard`
        /// (a ride that moved less than `ride.min_distance` in total) the record deletes it too.
        case endInterrupted(Flush, measurement: Int64, committedUntil: Int64, foundAt: Int64, discard: Bool)
        /// Stages a flush (``StagedCommits``: durable in the flush log, its events with it, and
        /// `steps` applied with it: a count) and commits what is staged if a limit is reached.
        /// Given at every flush, empty or not: the age limit is checked then.
        case stage(Flush, steps: [FlushLog.Step] = [])
        /// Commits everything staged now, after a lifecycle command (and, while its events wait,
        /// at a flush, at most once a second: ``retryDue(at:)``), waiting at most `patience`
        /// seconds for another process: a busy store leaves them waiting, durable, in the flush
        /// log (``storeFailed(_:during:)``); ``caughtUp()`` reports that they went in.
        case commitStaged(patience: Double)
        /// Stages the move of everything stored on the host clock by `correction` ms (the
        /// measurement goes onto GNSS time), applied in order with what is staged.
        case moveToGNSSTime(correction: Int64, motion: Bool)
        /// Stages a refined correction; nothing stored moves again.
        case recordClockCorrection(Int64)
        /// Replaces the sources that drive the lifecycle by their continuation after a crash
        /// (``SampleSource/continuing(measurementStart:committedEnd:resumedAt:)``), stores their
        /// new names and reports them with ``RecorderStateMachine/renamed(_:)``.
        case continueSources(measurementStart: Int64, committedEnd: Int64, resumedAt: Int64)
        /// Appends a line to the measurement's journal, at `time` (`nil`: when written).
        case journal(JournalEntry, at: Int64?)
        /// Appends records to the trace being recorded (`--record-trace`), writing them if `flush`.
        case trace([TraceRecord], flush: Bool)
        /// Every source failed before any delivered a sample: stages the stop (`Flush`) of the
        /// measurement, which holds nothing, and its deletion, in one record, so that it is
        /// never delivered (``RecorderStateMachine/nothingRecorded``).
        case discardEmpty(Flush)
        /// After a failed commit: commits what is staged as far as it fits.
        case commitWhatFits
        /// Ends the run: the journal's summary, the flush log closed, the threads stopped.
        case finish(captured: SampleCounts, lost: [String: Int])
    }

    /// A line of the measurement's journal (``RecorderJournal``).
    package enum JournalEntry: Sendable, Equatable {
        case start(modality: Modality, sources: [String], flushInterval: Int64)
        case recovered(committedUntil: Int64, sources: [String])
        case command(LifecycleCommand, by: String)
        case note(source: String, line: String, lostSoFar: Int?)
        /// A source failed for good, and why.
        case sourceFailed(source: String, error: String)
        case summary(captured: SampleCounts, lost: [String: Int], commitsDeferred: Int)
        /// Finished where its committed data ends by a recorder that started at `foundAt`.
        case interrupted(committedUntil: Int64, foundAt: Int64)
        /// A ride rule: armed, motion, still, the ride ended or continued (``RideEvent``).
        case ride(RideEvent)
        /// The board reported under-voltage (the first time in this measurement).
        case underVoltage
        /// The rider marked a moment (the journal's `t` is the marker's time).
        case marker(Marker)
    }

    /// What a lifecycle command came to.
    package enum CommandResult: Sendable, Equatable {
        /// Applied: perform `actions`; a modality change says whether it changed anything.
        case applied([Action], outcome: LifecycleOutcome?)
        /// The lifecycle refused it; nothing changed.
        case refused(LifecycleError)
        /// The recording ended on a store failure; nothing is taken any more.
        case failed(StoreError)
    }

    /// What to do about a failed store action.
    package enum StoreFailureDecision: Sendable, Equatable {
        /// Another process holds the database: what is staged waits in the flush log, durable,
        /// and goes in with the next commit; the recording goes on.
        case wait
        /// Prune delivered rides as the retention policy allows and report what went
        /// (``RecorderStateMachine/pruned(removed:after:)``).
        case pruneAndRetry
        /// Room was made: try the same action again.
        case retry
        /// Give up: perform these actions; the recording has ended with the failure.
        case stop([Action])
        /// The store is full and nothing may go, with `ride.detect: auto`: the recorder waits
        /// armed for room (``RecorderStateMachine/outOfRoom(at:)``); what is staged waits in the
        /// flush log.
        case waitForRoom
    }

    package internal(set) var state: State = .idle

    // Settings.
    let flushInterval: Int64
    private let tracing: Bool
    let canPrune: Bool
    /// The ride rules (`ride.*`) and what they remember.
    var ride: RideRules

    // The recording.
    var engine = Recording()
    /// When the measurement started (Unix ms, host clock): what lifecycle-driving sources re-base onto.
    package internal(set) var measurementStart: Int64 = 0
    var sources: [SourceInfo]
    var sourceStates: [RecorderStatus.SourceState]
    /// The last note written to the journal per source, so that a repeated note is written once.
    var journaled: [String?]
    var captured = SampleCounts()
    /// Captured counts over the last 10 s, one entry per flush, for the rates in `status`.
    var history: [(time: Int64, captured: SampleCounts)] = []
    var lastFix: Fix?
    /// Markers made while the ride's begin waits for the store (no id, so no journal yet): written
    /// once it has one (``began(measurement:at:)``).
    var heldMarkers: [Marker] = []
    /// The host clock or GNSS time, and what moves host-clock times onto it (``TimeBase``).
    var timeBase: TimeBase
    /// When the current track began (its START or RESUME), on the events' clock.
    var trackStart: Int64 = .min
    /// The latest sample time staged at a flush: a seam (``continueAsNew(at:)``) is after it.
    var stagedUntil: Int64 = .min
    /// Samples that arrived while capturing but were taken before the track began (a device
    /// buffer read just after a resume); counted with those dropped while paused.
    var droppedBeforeTrack = 0
    /// What a busy or full store keeps waiting (``retryDue(at:)``).
    var waits = StoreWaits()
    /// Whether the board reported under-voltage during the measurement recorded
    /// (``underVoltage(at:)``).
    var underVoltageSeen = false
    /// Each source with its error, when every source failed before any delivered a sample:
    /// the run ended at once, its measurement discarded (``sourceFailed(_:error:at:)``).
    package internal(set) var nothingRecorded: [String]?
    /// The sources that delivered a sample since the recorder started (armed or recording).
    var delivered = Set<Int>()
    /// Whether this recorder continues a measurement an earlier one recorded (``recover(_:at:)``):
    /// its sources failing does not make that measurement empty.
    var continuing = false
    /// Measurement ids reserved in the store for rides to come (``reserved(_:)``).
    var reservations = IDReservations()
    /// With `ride.detect: auto`, the wait armed for room in a store full of what may not go
    /// (``outOfRoom(at:)``).
    var room = RoomWait()

    /// - Parameters:
    ///   - tracing: whether what the sources deliver is also recorded as a trace.
    ///   - canPrune: whether a full store may be met by pruning (a retention policy is set).
    ///   - ride: where rides begin and end (`ride.*`); `ride.detect: auto` starts with ``arm(modality:at:)``.
    package init(
        sources: [SourceInfo], flushInterval: Int64, gnssTime: GNSSTimePolicy = .auto, hostSynchronized: Bool = false,
        tracing: Bool = false, canPrune: Bool = false, ride: RideSettings = .standard
    ) {
        self.ride = RideRules(settings: ride)
        self.sources = sources
        self.flushInterval = flushInterval
        timeBase = TimeBase(policy: gnssTime, hostSynchronized: hostSynchronized)
        self.tracing = tracing
        self.canPrune = canPrune
        sourceStates = sources.map { .init(name: $0.name, state: .running, error: nil, samples: 0) }
        journaled = sources.map { _ in nil }
    }

    /// The measurement being recorded, if one is; once finished, the one that was.
    package var measurement: Int64? {
        switch state {
        case .recording(let id), .finished(let id?, _): id
        default: nil
        }
    }

    package var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    /// The failure that ended the recording, if one did.
    package var failure: StoreError? {
        if case .finished(_, let failure) = state { failure } else { nil }
    }

    // MARK: - Beginning

    /// A new measurement, starting at `now`.
    package mutating func start(modality: Modality, at now: Int64) throws(LifecycleError) -> [Action] {
        let flush = try engine.apply(.start(modality), at: now)
        trackStart = now
        measurementStart = now
        underVoltageSeen = false
        return [.begin(flush, sources: sources.map(\.name))]
    }

    /// The store gave the new measurement `id`.
    package mutating func began(measurement id: Int64, at now: Int64) -> [Action] {
        state = .recording(measurement: id)
        waits.begin = nil
        let modality = engine.lifecycle.modality ?? .unknown
        return [
            .journal(.start(modality: modality, sources: sources.map(\.name), flushInterval: flushInterval), at: now),
            .trace([.mark(.start(modality), at: now)], flush: true),
        ] + ride.begun() + takeHeldMarkers()
    }

    /// The sources' names after ``Action/continueSources(measurementStart:committedEnd:resumedAt:)``.
    package mutating func renamed(_ names: [String]) {
        for (index, name) in names.enumerated() where index < sources.count {
            sources[index].name = name
            sourceStates[index].name = name
        }
    }

    // MARK: - Samples

    /// What a source handed over since it was last taken: its reads, each with the time it
    /// arrived (host clock), and how many samples its inbox had to drop (it holds `capacity`).
    package mutating func take(
        _ reads: [(samples: [Sample], arrived: Int64)], dropped: Int, capacity: Int, from index: Int
    ) -> [Action] {
        if reads.contains(where: { !$0.samples.isEmpty }) { delivered.insert(index) }
        var actions: [Action] = []
        var traced: [TraceRecord] = []
        // With ride.detect: auto the rules judge read by read (a ride begins or ends between two
        // reads of one take); otherwise the reads are recorded as they come.
        for read in reads {
            if state == .armed {
                if !traced.isEmpty { actions.append(.trace(traced, flush: false)) }
                traced = []
                actions += takeArmed(read, from: index)
                continue
            }
            guard case .recording = state else { break }
            for sample in read.samples {
                ingest(sample, from: index, arrived: read.arrived, traced: &traced, actions: &actions)
            }
            if ride.settings.detect == .auto {
                if !traced.isEmpty { actions.append(.trace(traced, flush: false)) }
                traced = []
                actions += rideCheck(at: read.arrived)
            }
        }
        if !traced.isEmpty { actions.insert(.trace(traced, flush: false), at: 0) }
        guard case .recording = state else { return actions }
        if dropped > 0 {
            actions += note(
                .lost(dropped, reason: "the recorder fell behind (the store was busy): \(capacity) samples waited, later ones were dropped"),
                from: index)
        }
        return actions
    }

    mutating func ingest(
        _ sample: Sample, from index: Int, arrived: Int64, traced: inout [TraceRecord], actions: inout [Action]
    ) {
        var sample = sample
        let sourceClock = sources[index].clock
        switch sourceClock {
        case .host:
            if let correction = timeBase.correction, correction != 0 { sample.shift(to: sample.timestamp + correction) }
        case .gnss:
            if case .fix(let fix) = sample {
                actions += observe(fix, arrived: arrived)
                if !placeEarly(fix, arrived: arrived, actions: &actions) {
                    droppedBeforeTrack += 1
                    return
                }
            }
        case .recorded: break
        }
        // A sample on the events' clock taken before its track began belongs to no track.
        let onEventClock = sourceClock == .host || (sourceClock == .gnss && timeBase.correction != nil)
        if onEventClock, sample.timestamp < trackStart, engine.lifecycle.state.phase == .capturing {
            droppedBeforeTrack += 1
            return
        }
        sourceStates[index].samples += 1
        if tracing { traced.append(.sample(sample)) }
        if ride.settings.detect == .auto { ride.detector.observe(sample, at: arrived) }
        guard engine.ingest(sample) else { return }
        switch sample {
        case .motion(let sensor, _): captured[sensor] += 1
        case .fix(let fix):
            captured.locations += 1
            // The first fix since a flush: the way up to it is stored whatever the ride's end drops.
            if engine.pendingFixes.count == 1 { ride.travelBeforePending = ride.travel }
            ride.travel.pass(fix)
            lastFix = fix
        case .pressure: captured.pressure += 1
        }
    }

    /// Notes a live receiver's fix against the host clock and, when the policy allows and the
    /// host clock is found off (``GNSSClock``), puts the measurement on GNSS time: what is
    /// pending is committed, then everything stored on the host clock is moved in one
    /// transaction, and what comes after is moved as it arrives.
    mutating func observe(_ fix: Fix, arrived: Int64) -> [Action] {
        switch timeBase.observe(gnss: fix.timestamp, host: arrived) {
        case nil: return []
        case .refined(let next)?: return [.recordClockCorrection(next)]
        case .moved(let next)?: return moveOntoGNSSTime(by: next)
        }
    }

    /// Everything stored on the host clock moves by `correction`: what is pending is staged
    /// before the move (which is applied after it), then committed with it.
    private mutating func moveOntoGNSSTime(by correction: Int64) -> [Action] {
        trackStart += correction
        return [
            .stage(engine.takeFlush()),
            .moveToGNSSTime(correction: correction, motion: sources.contains { $0.clock == .host }), commitStagedNow,
        ]
    }

    /// A live receiver's fix that lies before its track's start by more than
    /// ``GNSSClock/threshold`` while no correction is in force (``TimeBase/early(gnss:arrived:start:)``):
    /// a host clock off (a board without a real-time clock, days ahead until NTP answers) or
    /// stale bytes. Before the clock is judged the measurement moves onto the fix's time at
    /// once, so the fix goes in, committed with the next flush like any other, inside its
    /// measurement; once the clock is judged right it is stale. Returns false for a fix to drop.
    private mutating func placeEarly(_ fix: Fix, arrived: Int64, actions: inout [Action]) -> Bool {
        guard timeBase.correction == nil, engine.lifecycle.state.phase == .capturing, fix.timestamp < trackStart,
            !timeBase.agrees(gnss: fix.timestamp, with: trackStart)
        else { return true }
        switch timeBase.early(gnss: fix.timestamp, arrived: arrived, start: trackStart) {
        case .moves(let correction):
            actions += moveOntoGNSSTime(by: correction)
            return true
        case .stale: return false
        case .kept: return true
        }
    }

    // MARK: - Time

    /// The board reported under-voltage at a flush wake-up (``Recorder``'s `board`): the first
    /// time in a measurement, its journal says so and the store counts it
    /// (``RideCount/sawUnderVoltage``) in a record of its own, durable at once. Not while the
    /// measurement has no id yet (its begin waits for a busy store): the next wake-up tries again.
    package mutating func underVoltage(at now: Int64) -> [Action] {
        guard case .recording(let id) = state, id != 0, waits.begin == nil, !underVoltageSeen else { return [] }
        underVoltageSeen = true
        return [.journal(.underVoltage, at: now), .stage(engine.bareFlush, steps: [.countRide(.sawUnderVoltage)])]
    }

    /// A flush interval has passed: what was captured goes to the store.
    package mutating func flushDue(at now: Int64) -> [Action] {
        if state == .armed { return armedFlushDue(at: now) + reservationDue(at: now) }
        guard case .recording = state else { return [] }
        return recordingFlushDue(at: now) + reservationDue(at: now)
    }

    private mutating func recordingFlushDue(at now: Int64) -> [Action] {
        // A ride whose begin waits for a busy store: its samples wait in the recording.
        if let begin = waits.begin {
            return waits.tries.take(at: now, every: retryEvery) ? [begin] : []
        }
        // The rates are over the last 10 s of capturing: a pause starts them afresh, so that after
        // a resume they are the sources' again, not an average over the pause.
        if engine.lifecycle.state.phase == .capturing { history.append((now, captured)) } else { history = [] }
        history.removeAll { now - $0.time > 10_000 }
        // Standing still, what comes is held back: the tail a ride's end cuts.
        let rule = rideCheck(at: now)
        guard ride.stillSince == nil, !rule.contains(where: \.endsRide) else { return rule }
        if seamDue(at: now) { return rule + continueAsNew(at: now) }
        let flush = engine.takeFlush()
        if let last = flush.lastSampleTime { stagedUntil = max(stagedUntil, last) }
        // Events that waited for a busy store go in with this flush, if it lets them.
        return rule + [.stage(flush)] + retryDue(at: now) + [.trace([], flush: true)]
    }
}
