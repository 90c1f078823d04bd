import CaptureCore
import CaptureSensors
import CaptureStorage
import Dispatch
import Glibc
import Synchronization

/// Actions decided and not yet performed, in the order decided, with the barriers of the
/// commands waiting for theirs. Events push under the state lock (so the order is the order of
/// decisions); the driver thread takes them all at once.
final class WorkQueue: Sendable {
    enum Item: Sendable {
        case action(RecorderStateMachine.Action)
        /// Signalled once everything before it was performed (or dropped: the run has ended).
        case barrier(DispatchSemaphore)
    }

    private struct Contents {
        var items: [Item] = []
        var closed = false
    }

    private let contents = Mutex(Contents())
    /// One signal per push: wakes the driver thread.
    private let wakeUp = DispatchSemaphore(value: 0)

    func push(_ actions: [RecorderStateMachine.Action], barrier: DispatchSemaphore?) {
        guard !actions.isEmpty || barrier != nil else { return }
        let closed = contents.withLock { contents in
            guard !contents.closed else { return true }
            contents.items += actions.map(Item.action)
            if let barrier { contents.items.append(.barrier(barrier)) }
            return false
        }
        if closed {
            barrier?.signal()
        } else {
            wakeUp.signal()
        }
    }

    /// Waits until something is pushed or `milliseconds` pass.
    func wait(milliseconds: Int64) {
        _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(clamping: milliseconds)))
    }

    func takeAll() -> [Item] {
        contents.withLock { contents in
            defer { contents.items = [] }
            return contents.items
        }
    }

    /// No more actions will be performed: the barriers waiting, and those pushed later, are
    /// signalled at once.
    func close() {
        let left = contents.withLock { contents in
            contents.closed = true
            defer { contents.items = [] }
            return contents.items
        }
        for case .barrier(let barrier) in left { barrier.signal() }
    }
}

/// What the driver thread alone touches while the recorder runs: the way into the store, the
/// journal and the trace.
struct Lane {
    /// The way flushes reach the store; set before the measurement begins.
    var staged: StagedCommits?
    var measurement: Int64?
    /// The measurement's `recorder.jsonl` (nil until it starts, or if it cannot be written).
    var journal: RecorderJournal?
    let trace: TraceTap?
    /// A stage action whose flush went into the log before its due commit failed: a retry
    /// after pruning only commits.
    var stagedBeforeFailure = false
    /// The run has finished: what is still queued is dropped.
    var finished = false
    /// Rides that ended, kept, whose records wait to reach the database: handed to delivery then.
    var toDeliver: [Int64] = []
    /// Whether a ride was discarded since the last commit: its files go once its deletion is in.
    var discarded = false

    init(trace: TraceTap?) {
        self.trace = trace
    }

    /// - Parameter registered: whether to record the journal as an attachment now (else its
    ///   measurement's `begin` step in the flush log does).
    mutating func open(measurement id: Int64, directory: String, store: Store, registered: Bool = true) {
        measurement = id
        journal = RecorderJournal(directory: directory, measurement: id, store: registered ? store : nil)
    }
}

/// What the driver thread publishes for `capture status`.
struct Published: Sendable {
    /// The samples staged in the flush log, not yet in the database.
    var staged: SampleCounts?
    /// Why the trace stopped being written, if it did.
    var traceFailure: String?
    /// How long the last flushes took to be durable in the flush log.
    var flushes = FlushLatencies()
}

extension Recorder {
    /// Performs what is queued, in order. Returns whether the run has finished.
    ///
    /// - Parameter limit: perform at most this many actions and drop the rest, as a power cut
    ///   between two of them would (`capture-faults simulate`, on a recorder that is not run).
    package func performQueued(cuttingAfter limit: Int = .max) -> Bool {
        var left = limit
        for item in work.takeAll() {
            switch item {
            case .barrier(let barrier): barrier.signal()
            case .action(let action):
                guard left > 0 else { continue }
                left -= 1
                performHandlingFailure(action)
            }
        }
        guard lane.withLock({ $0.finished }) else { return false }
        work.close()
        return true
    }

    /// Performs one action; a store failure goes to the state machine, which decides whether to
    /// prune and try again (as long as pruning removes something) or to end the recording.
    private func performHandlingFailure(_ action: RecorderStateMachine.Action) {
        var retry = false
        while true {
            let failure = lane.withLock { lane -> StoreError? in
                guard !lane.finished else { return nil }
                do throws(StoreError) {
                    try perform(action, on: &lane, retry: retry)
                    return nil
                } catch {
                    return error
                }
            }
            guard let failure else { return }
            var decision = machine.withLock { $0.storeFailed(failure, during: action) }
            if decision == .pruneAndRetry {
                let removed = pruneForRoom()
                decision = machine.withLock { $0.pruned(removed: removed, after: failure) }
            }
            switch decision {
            case .wait:
                // Durable in the flush log; the next flush tries again.
                return
            case .retry, .pruneAndRetry:
                retry = true
            case .stop(let actions):
                giveUp(actions)
                return
            case .waitForRoom:
                // What was staged stays in the flush log; the recorder waits armed for room.
                lane.withLock { $0.stagedBeforeFailure = false }
                let now = clock()
                handle { $0.outOfRoom(at: now) }
                return
            }
        }
    }

    /// The actions of a recording that ended on a failure: none of them fails in turn.
    private func giveUp(_ actions: [RecorderStateMachine.Action]) {
        lane.withLock { lane in
            lane.stagedBeforeFailure = false
            for action in actions { try? perform(action, on: &lane, retry: false) }
        }
    }

    /// Performs one action (``RecorderStateMachine/Action``).
    func perform(_ action: RecorderStateMachine.Action, on lane: inout Lane, retry: Bool) throws(StoreError) {
        switch action {
        case .begin(let flush, let sources):
            let id = try store.begin(flush, sources: sources.joined(separator: "\n"))
            lane.open(measurement: id, directory: directory, store: store)
        case .beginRide(let flush, let sources, let reason, let reserved?):
            guard let staged = lane.staged else { return }
            let begin = FlushLog.Step.begin(sources: sources.joined(separator: "\n"), journal: RecorderJournal.name)
            try staged.commit(
                flush, steps: [begin, .countRide(reason.count)], to: reserved,
                now: clock())
            publishStaged(staged)
            lane.open(measurement: reserved, directory: directory, store: store, registered: false)
        case .beginRide(let flush, let sources, let reason, nil):
            // No id reserved: the ride before must be in the database first. Giving way soon: a
            // busy store keeps the begin waiting (and the ride's samples in the recording), tried
            // again at a flush (``RecorderStateMachine/storeFailed(_:during:)``).
            try commitStaged(on: &lane, patience: StagedCommits.lifecyclePatience)
            // Counted in the same transaction: tried again after a prune, it begins one ride.
            let id = try store.begin(
                flush, sources: sources.joined(separator: "\n"), counting: reason.count,
                patience: StagedCommits.patience)
            lane.open(measurement: id, directory: directory, store: store)
            let now = clock()
            handle { $0.began(measurement: id, at: now) }
        case .endRide(let stop, let captured, let discard, let end):
            guard let id = lane.measurement, let staged = lane.staged else { return }
            // Its stop, count and deletion in one record: a power cut leaves all or none of them.
            let steps: [FlushLog.Step] = [.countRide(end.count)] + (discard ? [.discard, .countRide(.discardedAsStill)] : [])
            try staged.commit(stop, steps: steps, to: id, now: clock())
            publishStaged(staged)
            lane.journal?.note(
                RecorderStateMachine.JournalEntry.summary(captured: captured, lost: [:], commitsDeferred: staged.deferred).line,
                at: clock())
            lane.journal = nil
            lane.measurement = nil
            if discard { lane.discarded = true } else { lane.toDeliver.append(id) }
            keepWithinBudget(staged: staged.stagedWeight)
        case .discardEmpty(let stop):
            guard let id = lane.measurement, let staged = lane.staged else { return }
            // Its stop and deletion in one record; nothing of it is delivered.
            try staged.commit(stop, steps: [.discard], to: id, now: WallClock.now())
            publishStaged(staged)
            lane.journal = nil
            lane.measurement = nil
            lane.discarded = true
        case .checkRoom:
            let room = hasRoom(staged: lane.staged?.stagedWeight ?? 0, toResume: true)
            let now = clock()
            handle { $0.roomChecked(room, at: now) }
        case .reserveMeasurementIDs:
            // Giving way at once: a busy store is tried again at the next flush. Meanwhile the ids
            // an earlier recorder reserved serve (a start while another process reads).
            let ids =
                (try? store.reserveMeasurementIDs(keeping: RecorderStateMachine.idsAhead, patience: StagedCommits.patience))
                ?? (try? store.reservedMeasurementIDs()) ?? []
            machine.withLock { $0.reserved(ids) }
        case .endInterrupted(let stop, let id, let end, let now, let discard):
            guard let staged = lane.staged else { return }
            let steps: [FlushLog.Step] = [.countRide(.endedByPower)] + (discard ? [.discard, .countRide(.discardedAsStill)] : [])
            try staged.commit(stop, steps: steps, to: id, now: clock())
            publishStaged(staged)
            // Its files go once the record is in the database (``committed(on:)``).
            if discard {
                lane.discarded = true
                return
            }
            // Its journal is registered already (a power cut may have torn its last line: cut off).
            RecorderJournal(directory: directory, measurement: id, store: nil)?
                .note(RecorderStateMachine.JournalEntry.interrupted(committedUntil: end, foundAt: now).line, at: end)
        case .stage(let flush, let steps):
            guard let staged = lane.staged, let measurement = lane.measurement else { return }
            let now = clock()
            defer { publishStaged(staged) }
            // A flush staged before the database turned out full is kept: the retry moves it on.
            if !(retry && lane.stagedBeforeFailure) {
                // Events too: durable here; `commitStaged`, which follows a command, moves them on.
                let began = ContinuousClock.now
                try staged.commit(flush, steps: steps, to: measurement, now: now)
                let took = ContinuousClock.now - began
                published.withLock { $0.flushes.note(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18) }
            }
            lane.stagedBeforeFailure = true
            if staged.isDue(now: now) { publishMoving() }
            try staged.commitIfDue(now: now)
            // Staged flushes the budget has no room for once applied (nothing may be pruned):
            // into the database now, where the ceiling counts them (a full store prunes or stops).
            if !keepWithinBudget(staged: staged.stagedWeight), staged.hasStaged {
                publishMoving()
                do {
                    try staged.commitStaged(patience: StagedCommits.patience)
                } catch .busy {
                    // Durable in the log; the next flush tries again.
                }
            }
            lane.stagedBeforeFailure = false
            committed(on: &lane)
        case .commitStaged(let patience):
            try commitStaged(on: &lane, patience: patience)
            machine.withLock { $0.caughtUp() }
        case .moveToGNSSTime(let correction, let motion):
            guard let measurement = lane.measurement, let staged = lane.staged else { return }
            // After what is staged, before what comes (already on GNSS time).
            try staged.commit(
                Self.noSamples, steps: [.moveToGNSSTime(correction: correction, motion: motion)], to: measurement,
                now: clock())
        case .recordClockCorrection(let correction):
            guard let measurement = lane.measurement, let staged = lane.staged else { return }
            try staged.commit(Self.noSamples, steps: [.recordClockCorrection(correction)], to: measurement, now: clock())
        case .continueSources(let measurementStart, let committedEnd, let resumedAt):
            let names = sources.withLock { sources in
                sources = sources.map { source in
                    guard source.drivesLifecycle else { return source }
                    return source.continuing(measurementStart: measurementStart, committedEnd: committedEnd, resumedAt: resumedAt)
                }
                return sources.map(\.name)
            }
            machine.withLock { $0.renamed(names) }
            try store.updateSources(names.joined(separator: "\n"), of: lane.measurement ?? 0)
        case .journal(let entry, let time):
            lane.journal?.note(entry.line, at: time ?? clock())
        case .trace(let records, let flush):
            guard let trace = lane.trace else { return }
            for record in records { trace.append(record) }
            if flush {
                trace.flush()
                if let failure = trace.failure { published.withLock { $0.traceFailure = "\(failure)" } }
            }
        case .commitWhatFits:
            lane.staged?.commitWhatFits()
            if let staged = lane.staged { publishStaged(staged) }
        case .finish(let captured, let lost):
            guard !lane.finished else { return }
            lane.finished = true
            let deferred = lane.staged?.deferred ?? 0
            var line = RecorderStateMachine.JournalEntry.summary(captured: captured, lost: lost, commitsDeferred: deferred).line
            // What ended it, when a failure did, for `capture status` (RecordingEnd).
            if let failure = machine.withLock({ $0.failure }) { line.end(by: failure) }
            lane.journal?.note(line, at: clock())
            lane.staged?.close()
            stopSignal.stop()
            done.signal()
        }
    }

    /// The flush of a record that carries only steps.
    private static let noSamples = Flush(track: 0, state: .idle, modality: nil)

    /// Commits what is staged (``StagedCommits/commitStaged(patience:)``), then what waited
    /// for it (``committed(on:)``).
    private func commitStaged(on lane: inout Lane, patience: Double?) throws(StoreError) {
        guard let staged = lane.staged, staged.hasStaged else { return }
        publishMoving()
        defer { publishStaged(staged) }
        try staged.commitStaged(patience: patience)
        committed(on: &lane)
    }

    /// Once nothing is staged, everything is in the database: rides that ended go to delivery,
    /// the files of those discarded are removed.
    func committed(on lane: inout Lane) {
        guard let staged = lane.staged, !staged.hasStaged else { return }
        if lane.discarded {
            lane.discarded = false
            _ = try? store.removeLeftovers(in: directory)
        }
        let rides = lane.toDeliver
        lane.toDeliver = []
        for id in rides { rideEnded(id) }
    }

    /// Before a commit moves staged samples into the database: a reader of `status` adds the
    /// database's counts and the staged ones, so while they move they count as not staged,
    /// missed for a moment rather than counted twice.
    private func publishMoving() {
        published.withLock { $0.staged = SampleCounts() }
    }

    func publishStaged(_ staged: StagedCommits) {
        let counts = staged.stagedCounts
        published.withLock { $0.staged = counts }
    }

    /// How long a recorder that stopped while lifecycle events waited for a busy store
    /// (``RecorderStateMachine/eventsWaiting``) keeps trying to commit them before it exits, ms.
    /// What still does not go in stays durable in the flush log, for the next process that
    /// opens the store (every command does) or the next recorder.
    static let settleTime: Int64 = 60_000

    /// After the run: commits lifecycle events (and the samples staged with them) that waited
    /// for a busy store, trying every half second for at most ``settleTime``, so that a
    /// `capture stop` given while a reader held the store lands once the reader lets go.
    func settleWaitingEvents() {
        guard machine.withLock({ $0.eventsWaiting }) else { return }
        let deadline = clock() + Self.settleTime
        while true {
            let settled = lane.withLock { lane -> Bool in
                guard let staged = lane.staged else { return true }
                do throws(StoreError) {
                    // Giving way at once, as the tries while recording do.
                    try staged.commitStaged(patience: StagedCommits.patience)
                } catch .busy {
                    return false
                } catch {
                    // Not for waiting out: the flush log keeps it for the next process.
                    return true
                }
                committed(on: &lane)
                staged.close()
                machine.withLock { $0.caughtUp() }
                return true
            }
            if settled || clock() >= deadline { return }
            usleep(500_000)
        }
    }
}

extension RideEvent.Begin {
    /// What the store counts for a ride that began so.
    var count: RideCount {
        switch self {
        case .motion: .begunByMotion
        case .size: .begunBySize
        case .button: .begunByButton
        case .command: .begunByCommand
        }
    }
}

extension RideEvent.End {
    /// What the store counts for a ride that ended so.
    var count: RideCount {
        switch self {
        case .motion: .endedByMotion
        case .command: .endedByCommand
        case .size: .endedBySize
        case .fullStore: .endedByFullStore
        case .button: .endedByButton
        }
    }
}
