public import CaptureCore
public import CaptureSensors
public import CaptureStorage
import Foundation
import Glibc
import Synchronization

/// The live recorder: sources → recording engine → store, driven over the control socket.
///
/// One recorder per data directory (it holds ``RecorderLock``). Samples are committed once per
/// flush interval; every lifecycle command first commits what was captured before it. If a
/// commit fails (a full disk, say) the recorder stops capturing and exits with that error; the
/// measurement stays open and `capture stop` or `capture resume` takes it from there.
///
/// A source's thread never waits for the recorder: it hands its samples to its own ``Inbox``,
/// and the flush loop (and any command, or `status`) takes them into the recording under the
/// recorder's lock first. Four IIO devices woken at once by the same clock would otherwise
/// queue on that lock, each wait a wake-up (measured: about 3 a second under `bench-iio`), and
/// every source would wait for each flush's `fdatasync`. An inbox holds at most
/// `inboxCapacity` samples: should the recorder fall that far behind (a store stalled for a
/// minute), what comes on is dropped and counted as lost for its source, in `status` and the
/// journal, rather than held until memory runs out.
///
/// A ``LifecycleDrivingSource`` (a trace played as a simulated device) also hands over lifecycle
/// marks; each is applied as the control command of the same name would be, at the mark's time,
/// and its `stop` ends the recorder as `capture stop` does.
public final class Recorder: @unchecked Sendable {
    public let directory: String
    public let store: Store
    public let flushInterval: Int64
    /// Set before ``run(handlingSignals:)``; a recovery replaces the lifecycle-driving ones.
    private var sources: [any SampleSource]
    private let trace: TraceTap?
    /// What each source handed over since the recorder last took it (``takeDelivered()``).
    private let inboxes: [Inbox]

    // Everything below is guarded by `lock` (internal for a test that holds it).
    let lock = NSLock()
    private var engine = Recording()
    private var measurement: Int64 = 0
    /// When the measurement started (Unix ms): what lifecycle-driving sources re-base onto.
    private var measurementStart: Int64 = 0
    private var sourceStates: [RecorderStatus.SourceState]
    private var captured: [String: Int] = [:]
    private var history: [(time: Int64, captured: [String: Int])] = []
    private var lastFix: Fix?
    private var finished = false
    /// The measurement's `recorder.jsonl` (nil until it starts, or if it cannot be written).
    private var journal: RecorderJournal?
    /// The last note written to the journal per source, so that a repeated note is written once.
    private var journaled: [String: String] = [:]
    private var failure: StoreError?
    /// The way flushes reach the store (``StagedCommits``); set when the measurement starts.
    private var staged: StagedCommits?
    private let startedAt = WallClock.now()
    /// One clock per measurement: the host clock against live receivers' GNSS time.
    private var clock = GNSSClock()
    private let gnssTime: GNSSTimePolicy
    private let hostSynchronized = HostClock.isSynchronized()
    /// What is added to host-clock times (events, motion, pressure); `nil` while none is.
    private var correction: Int64?
    /// Which clock each source's times are on.
    private var sourceClocks: [SourceClock]
    /// When the current track began (its START or RESUME), on the events' clock.
    private var trackStart: Int64 = .min
    /// Samples that arrived while capturing but were taken before the track began (a device
    /// buffer read just after a resume); counted with those dropped while paused.
    private var droppedBeforeTrack = 0

    private let done = DispatchSemaphore(value: 0)
    /// Given with `finished`: wakes the sources, the flush loop and the control server, which
    /// wait in poll with its descriptor rather than on short timers.
    private let stopSignal = StopSignal()
    /// Signalled when the control server has answered its last request and stopped.
    private let serverStopped = DispatchSemaphore(value: 0)

    /// The socket the recorder listens on.
    public static func socketPath(directory: String) -> String { directory + "/control.sock" }

    /// Samples an inbox holds by default: about a minute of a 1 kHz device, 2.6 MB.
    public static let defaultInboxCapacity = 65_536

    /// - Parameters:
    ///   - trace: where to also write what the sources delivered (`--record-trace`).
    ///   - inboxCapacity: the samples each source's inbox holds until the recorder takes them
    ///     in; more are dropped and counted as lost.
    public init(
        directory: String, store: Store, sources: [any SampleSource], flushInterval: Int64, trace: TraceTap? = nil,
        gnssTime: GNSSTimePolicy = .auto, inboxCapacity: Int = Recorder.defaultInboxCapacity
    ) {
        self.gnssTime = gnssTime
        sourceClocks = sources.map(\.clock)
        self.directory = directory
        self.store = store
        self.sources = sources
        self.flushInterval = flushInterval
        self.trace = trace
        sourceStates = sources.map { .init(name: $0.name, state: .running, error: nil, samples: 0) }
        inboxes = sources.map { _ in Inbox(capacity: inboxCapacity) }
    }

    /// Samples a source has handed over, in its order, each read with the time it arrived: a
    /// live receiver's fix is held against the host clock at arrival (``GNSSClock``). At most
    /// `capacity` samples are held; the ones beyond are dropped (the newest: what is held stays
    /// continuous) and counted.
    final class Inbox: Sendable {
        struct Contents {
            var reads: [(samples: [Sample], arrived: Int64)] = []
            var held = 0
            var dropped = 0
        }

        let capacity: Int
        private let contents = Mutex(Contents())

        init(capacity: Int) {
            self.capacity = max(1, capacity)
        }

        func put(_ samples: [Sample]) {
            let now = WallClock.now()
            contents.withLock { contents in
                let kept = min(samples.count, capacity - contents.held)
                if kept > 0 {
                    contents.reads.append((kept == samples.count ? samples : Array(samples.prefix(kept)), now))
                    contents.held += kept
                }
                contents.dropped += samples.count - kept
            }
        }

        func take() -> Contents {
            contents.withLock { contents in
                defer { contents = Contents() }
                return contents
            }
        }
    }

    /// Starts a new measurement now. Returns its id.
    public func startNew(modality: Modality) throws -> Int64 {
        staged = try StagedCommits(store: store, directory: directory)
        let now = WallClock.now()
        let flush = try engine.apply(.start(modality), at: now)
        trackStart = now
        measurement = try store.begin(flush, sources: sources.map(\.name).joined(separator: "\n"))
        measurementStart = now
        journal = RecorderJournal(directory: directory, measurement: measurement, store: store)
        journal?.note(
            ["event": "start", "modality": modality.rawValue, "sources": sources.map(\.name), "flush_interval_ms": flushInterval],
            at: now)
        lock.withLock {
            trace?.append(.mark(.start(modality), at: now))
            trace?.flush()
        }
        return measurement
    }

    /// Continues the open measurement after its recorder died: an implicit pause where its
    /// committed data ends (if it was capturing), then a resume now, on a new track.
    ///
    /// When a source drives the lifecycle (a trace), it continues after the committed data
    /// (``LifecycleDrivingSource/continuing(measurementStart:committedEnd:resumedAt:)``), held
    /// for the time the recorder was down, and the store keeps its new name for the next
    /// recovery; a measurement the trace had paused stays paused until the trace resumes it.
    public func recoverInterrupted() throws -> Int64 {
        // First what the dead recorder staged, so that its committed data ends where it did.
        staged = try StagedCommits(store: store, directory: directory)
        guard let open = try store.openMeasurement() else { throw LifecycleError.notOpen(state: .idle) }
        measurement = open.id
        journal = RecorderJournal(directory: directory, measurement: open.id, store: store)
        // What an earlier recorder applied goes on: the host clock is likely still as wrong.
        correction = try store.clockCorrection(of: open.id)
        clock = GNSSClock(correction: correction)
        measurementStart = open.startTime - (correction ?? 0)
        engine = Recording(
            lifecycle: Lifecycle(restoring: open.lifecycleState, modality: try store.currentModality(of: open.id)))
        let end = try store.lastTimestamp(of: open.id) ?? open.startTime
        journal?.note(["event": "recovered", "committed_until": end, "sources": sources.map(\.name)])
        let wasCapturing = open.lifecycleState.phase == .capturing
        if wasCapturing {
            try store.commit(try engine.apply(.pause, at: end), to: open.id)
        }
        let now = max(WallClock.now() + (correction ?? 0), end)
        let driving = sources.contains { $0 is any LifecycleDrivingSource }
        if wasCapturing || !driving {
            try store.commit(try engine.apply(.resume, at: now), to: open.id)
            trackStart = now
        }
        if driving {
            sourceClocks = sources.map(\.clock)
            sources = sources.map { source -> any SampleSource in
                guard let driving = source as? any LifecycleDrivingSource else { return source }
                // A trace plays on the host clock; what it hands over is moved as it arrives.
                let host = correction ?? 0
                return driving.continuing(
                    measurementStart: open.startTime - host, committedEnd: end - host, resumedAt: now - host)
            }
            for (index, source) in sources.enumerated() { sourceStates[index].name = source.name }
            try store.updateSources(sources.map(\.name).joined(separator: "\n"), of: open.id)
        }
        return open.id
    }

    private var listener: Int32 = -1

    /// Binds the control socket and writes the pid file. Call before reporting readiness, so
    /// that a command sent right after `capture start` returns finds the recorder listening.
    public func listen() throws(StoreError) {
        let socketPath = Self.socketPath(directory: directory)
        do {
            listener = try ControlSocket.listen(at: socketPath)
        } catch {
            throw .cannotOpen(path: socketPath, reason: "\(error)")
        }
        if let file = try? AtomicFile(path: directory + "/recorder.pid") {
            do {
                try file.append(Array("\(getpid())\n".utf8))
                try file.commit()
            } catch {
                file.discard()
            }
        }
    }

    /// Releases what ``listen()`` took, when the recorder will not run after all.
    public func abandon() {
        if listener >= 0 { close(listener) }
        listener = -1
        unlink(Self.socketPath(directory: directory))
        unlink(directory + "/recorder.pid")
    }

    /// How long ``run(handlingSignals:)`` waits, after the measurement ended, for the sources
    /// to notice and return (an IIO source disables its buffer on the way out). IIO, NMEA and
    /// gpsd sources wake on the stop signal, others poll `shouldStop` at least every 100 ms; a
    /// gpsd connect can take 2 s, which is not waited for.
    static let sourceGracePeriod: DispatchTimeInterval = .seconds(1)

    /// Runs until the measurement is stopped (by command or, with `handlingSignals`, by
    /// SIGTERM/SIGINT) or a commit fails. Returns the failure, if any. ``listen()`` must have been
    /// called.
    public func run(handlingSignals: Bool = true) -> StoreError? {
        let listener = self.listener
        defer { abandon() }
        let signals = (handlingSignals ? [SIGTERM, SIGINT] : []).map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in _ = self.command(ControlRequest(command: .stop)) }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        let sourcesDone = DispatchGroup()
        for (index, source) in sources.enumerated() {
            sourcesDone.enter()
            startThread {
                self.runSource(source, index: index)
                sourcesDone.leave()
            }
        }
        startThread { self.flushLoop() }
        startThread { self.serve(listener) }
        done.wait()
        // The request that stopped the measurement is answered before the process exits.
        serverStopped.wait()
        _ = sourcesDone.wait(timeout: .now() + Self.sourceGracePeriod)
        return lock.withLock { failure }
    }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Given with `finished`, without the lock: sources that poll ask it every 100 ms.
    private var shouldStop: Bool { stopSignal.isStopped }

    private func runSource(_ source: any SampleSource, index: Int) {
        do {
            if let driving = source as? any LifecycleDrivingSource {
                try driving.run(
                    measurementStart: lock.withLock { measurementStart },
                    deliver: { sample in self.deliver([sample], from: index) },
                    mark: { command, time in self.take(command, at: time, from: index) }, shouldStop: { self.shouldStop })
            } else if let reporting = source as? any ReportingSampleSource {
                try reporting.run(
                    deliverAll: { samples in self.deliver(samples, from: index) },
                    note: { note in self.take(note, from: index) }, stop: stopSignal)
            } else {
                try source.run(
                    deliver: { sample in self.deliver([sample], from: index) }, shouldStop: { self.shouldStop })
            }
            lock.withLock { sourceStates[index].state = .ended }
        } catch {
            lock.withLock {
                sourceStates[index].state = .failed
                sourceStates[index].error = "\(error)"
            }
        }
    }

    /// Takes a source's samples into its inbox, without the recorder's lock.
    private func deliver(_ samples: [Sample], from index: Int) {
        inboxes[index].put(samples)
    }

    /// Takes what the sources handed over into the recording: before every flush, lifecycle
    /// command and status. Call with `lock` held.
    private func takeDelivered() {
        for (index, inbox) in inboxes.enumerated() {
            let contents = inbox.take()
            for read in contents.reads {
                // A commit failure (in observe) finishes the recorder mid-read.
                for sample in read.samples where !finished { ingest(sample, from: index, arrived: read.arrived) }
            }
            if contents.dropped > 0 {
                note(
                    .lost(
                        contents.dropped,
                        reason: "the recorder fell behind (the store was busy): \(inbox.capacity) samples waited, later ones were dropped"),
                    from: index)
            }
        }
    }

    /// One sample, handed over at `arrived` (host clock). Call with `lock` held.
    private func ingest(_ sample: Sample, from index: Int, arrived: Int64) {
        var sample = sample
        switch sourceClocks[index] {
        case .host:
            if let correction, correction != 0 { sample.shift(to: sample.timestamp + correction) }
        case .gnss:
            if case .fix(let fix) = sample { observe(fix, arrived: arrived) }
        case .recorded: break
        }
        // A sample on the events' clock taken before its track began belongs to no track.
        let onEventClock = sourceClocks[index] == .host || (sourceClocks[index] == .gnss && correction != nil)
        if onEventClock, sample.timestamp < trackStart, engine.lifecycle.state.phase == .capturing {
            droppedBeforeTrack += 1
            return
        }
        sourceStates[index].samples += 1
        trace?.append(.sample(sample))
        if engine.ingest(sample) {
            captured[Self.kind(of: sample), default: 0] += 1
            if case .fix(let fix) = sample { lastFix = fix }
        }
    }

    /// Notes a live receiver's fix against the host clock and, when the policy allows and the
    /// host clock is found off (``GNSSClock``), puts the measurement on GNSS time: what is
    /// pending is committed, then everything stored on the host clock is moved in one
    /// transaction, and what comes after is moved as it arrives. Call with `lock` held.
    private func observe(_ fix: Fix, arrived: Int64) {
        guard clock.observe(gnss: fix.timestamp, host: arrived) else { return }
        guard gnssTime == .always || (gnssTime == .auto && !hostSynchronized), let next = clock.correction else { return }
        do {
            if correction == nil {
                commit(engine.takeFlush())
                guard failure == nil else { return }
                // Everything the correction moves must be in the database.
                try staged?.commitStaged()
                try store.applyClockCorrection(next, to: measurement, motion: sourceClocks.contains(.host))
                trackStart += next
            } else {
                try store.recordClockCorrection(next, of: measurement)
            }
            correction = next
        } catch {
            fail(error)
        }
    }

    /// Applies a lifecycle mark from a source as the control command would: commits what came
    /// before it, then its events. A mark the lifecycle refuses (a `pause` after `capture pause`)
    /// is left out and noted on the source.
    private func take(_ command: LifecycleCommand, at time: Int64, from index: Int) {
        lock.withLock {
            guard !finished else { return }
            takeDelivered()
            var time = time
            if sourceClocks[index] == .host, let correction { time += correction }
            do {
                let flush = try engine.apply(command, at: time)
                if command.beginsTrack { trackStart = time }
                commit(flush)
                trace?.append(.mark(command, at: time))
                trace?.flush()
                journal?.note(Self.journalLine(command, from: sourceStates[index].name), at: time)
                if command == .stop { finish() }
            } catch {
                sourceStates[index].note = "left out its \(command.verb) mark: \(error)"
            }
        }
    }

    private func take(_ note: SourceNote, from index: Int) {
        lock.withLock { self.note(note, from: index) }
    }

    /// Records a source's note in its state and the journal. Call with `lock` held.
    private func note(_ note: SourceNote, from index: Int) {
        switch note {
        case .lost(let count, let reason):
            sourceStates[index].lost = (sourceStates[index].lost ?? 0) + count
            sourceStates[index].note = reason
        case .skipped(let count): sourceStates[index].skipped = (sourceStates[index].skipped ?? 0) + count
        case .gnss(let state): sourceStates[index].gnss = state
        case .info(let text): sourceStates[index].note = text
        }
        let name = sourceStates[index].name
        let line: String? =
            switch note {
            case .lost(_, let reason): "lost samples: \(reason)"
            case .gnss(let state): "gnss: \(state)"
            case .info(let text): text
            case .skipped: nil
            }
        if let line, journaled[name] != line {
            journaled[name] = line
            var fields: [String: Any] = ["source": name, "note": line]
            if case .lost = note { fields["lost_so_far"] = sourceStates[index].lost ?? 0 }
            journal?.note(fields)
        }
    }

    /// A journal line for a lifecycle command and who gave it.
    private static func journalLine(_ command: LifecycleCommand, from origin: String) -> [String: Any] {
        var fields: [String: Any] = ["event": command.verb, "by": origin]
        if case .modality(let modality) = command { fields["modality"] = modality.rawValue }
        if case .start(let modality) = command { fields["modality"] = modality.rawValue }
        return fields
    }

    private static func kind(of sample: Sample) -> String {
        switch sample {
        case .motion(let sensor, _): sensor.shortName
        case .fix: "fix"
        case .pressure: "prs"
        }
    }

    private func flushLoop() {
        while true {
            let deadline = WallClock.now() + flushInterval
            guard stopSignal.sleep(until: deadline) else { return }
            lock.withLock {
                guard !finished else { return }
                takeDelivered()
                commit(engine.takeFlush())
                trace?.flush()
                let now = WallClock.now()
                history.append((now, captured))
                history.removeAll { now - $0.time > 10_000 }
            }
        }
    }

    /// What may be removed when the store is full (`retention:` in the config file); `nil`:
    /// nothing, a full store ends the recording (exit 73).
    public var retention: RetentionPolicy?

    /// Commits a flush; on failure stops everything. Call with `lock` held.
    ///
    /// A full store (the disk, or `--max-store-size`) is first met by pruning as ``retention``
    /// allows (delivered measurements, unsent ones only with `drop_unsent: oldest`) and one more
    /// try; only when nothing may go does the recording end.
    private func commit(_ flush: Flush) {
        // A flush staged before the database turned out full is kept: the retry moves it on.
        var kept = false
        let commit = { [self] () throws(StoreError) in
            if let staged {
                let now = WallClock.now()
                if !kept {
                    try staged.commit(flush, to: measurement, now: now)
                    kept = true
                }
                try staged.commitIfDue(now: now)
            } else {
                try store.commit(flush, to: measurement)
            }
        }
        do {
            try commit()
        } catch .diskFull where retention.map(pruneForRoom) == true {
            do {
                try commit()
            } catch {
                fail(error)
            }
        } catch {
            fail(error)
        }
    }

    /// Ends the recording after a failed commit, with what is staged in the database as far as
    /// it fits (the rest waits in the flush log). Call with `lock` held.
    private func fail(_ error: StoreError) {
        staged?.commitWhatFits()
        failure = error
        finish()
    }

    /// Prunes as `policy` allows; whether anything was removed. Call with `lock` held.
    private func pruneForRoom(_ policy: RetentionPolicy) -> Bool {
        // Over budget by definition: the store is full. Whatever `max_store_size` says, room is
        // what is needed now, so the budget is what is in use less one flush's worth.
        var policy = policy
        if let size = try? store.databaseSize(), let room = ByteSize(bytes: max(4096, size - 1_048_576)),
            (policy.maxStoreSize?.bytes ?? .max) > room.bytes
        {
            policy.maxStoreSize = room
        }
        guard let report = try? store.prune(policy, now: WallClock.now(), directory: directory) else { return false }
        return !report.removed.isEmpty
    }

    /// Call with `lock` held.
    private func finish() {
        guard !finished else { return }
        finished = true
        stopSignal.stop()
        var lost: [String: Int] = [:]
        for state in sourceStates { if let count = state.lost { lost[state.name] = count } }
        // Staged commits that gave way to another process's transaction (none lost: they went in
        // at a later flush); many mean a reader holding the store for long.
        journal?.note(["event": "summary", "captured": captured, "lost": lost, "commits_deferred": staged?.deferred ?? 0])
        staged?.close()
        done.signal()
    }

    /// Handles one control request.
    func command(_ request: ControlRequest) -> ControlReply {
        let lifecycleCommand: LifecycleCommand
        switch request.command {
        case .status: return ControlReply(ok: true, status: status())
        case .pause: lifecycleCommand = .pause
        case .resume: lifecycleCommand = .resume
        case .stop: lifecycleCommand = .stop
        case .modality:
            guard let modality = request.modality else {
                return ControlReply(
                    ok: false, failure: ControlFailure(kind: .badRequest, message: "a modality change names no modality"))
            }
            lifecycleCommand = .modality(modality)
        }
        return lock.withLock {
            if let failure {
                return ControlReply(ok: false, failure: ControlFailure(failure))
            }
            takeDelivered()
            do {
                let now = WallClock.now() + (correction ?? 0)
                let modalityBefore = engine.lifecycle.modality
                let flush = try engine.apply(lifecycleCommand, at: now)
                if lifecycleCommand.beginsTrack { trackStart = now }
                commit(flush)
                trace?.append(.mark(lifecycleCommand, at: now))
                trace?.flush()
                journal?.note(Self.journalLine(lifecycleCommand, from: "capture " + lifecycleCommand.verb), at: now)
                if let failure {
                    return ControlReply(ok: false, failure: ControlFailure(failure))
                }
                if lifecycleCommand == .stop { finish() }
                var outcome: LifecycleOutcome?
                if case .modality(let modality) = lifecycleCommand {
                    // The lifecycle ignores the modality in force; say so rather than "is now".
                    outcome = modality == modalityBefore ? .unchanged : .changed
                }
                return ControlReply(ok: true, status: statusLocked(), outcome: outcome)
            } catch let error as LifecycleError {
                return ControlReply(ok: false, failure: ControlFailure(error))
            } catch {
                return ControlReply(ok: false, failure: ControlFailure(kind: .storage, message: "\(error)"))
            }
        }
    }

    private func status() -> RecorderStatus {
        lock.withLock {
            takeDelivered()
            return statusLocked()
        }
    }

    private func statusLocked() -> RecorderStatus {
        let now = WallClock.now()
        let oldest = history.first
        let sensors = ["acc", "gyr", "mag", "prs", "fix"].map { kind in
            let count = captured[kind, default: 0]
            var rate = 0.0
            if let oldest, now > oldest.time {
                rate = Double(count - oldest.captured[kind, default: 0]) * 1000 / Double(now - oldest.time)
            }
            return RecorderStatus.SensorRate(sensor: kind, captured: count, rate: (rate * 10).rounded() / 10)
        }
        return RecorderStatus(
            pid: getpid(), measurement: measurement, state: engine.lifecycle.state.phase,
            track: engine.lifecycle.state.track, modality: engine.lifecycle.modality,
            flushIntervalMs: flushInterval, startedAt: startedAt, sources: sourceStates, sensors: sensors,
            lastFix: lastFix, droppedWhilePaused: engine.droppedWhileNotCapturing + droppedBeforeTrack, rejectedUnstorable: engine.rejectedUnstorable,
            pendingSamples: engine.pendingSamples,
            failedSources: sourceStates.filter { $0.state == .failed }.count,
            lostSamples: sourceStates.reduce(0) { $0 + ($1.lost ?? 0) }, recordingTrace: trace.map { tap in tap.failure.map { "\(tap.path) (stopped: \($0))" } ?? tap.path },
            clock: clock.fixes == 0 && correction == nil
                ? nil
                : ClockReport(
                    fixes: clock.fixes, offsetMs: clock.median, spreadMs: clock.spread, correctionMs: correction,
                    hostSynchronized: hostSynchronized, policy: gnssTime),
            staged: staged.map(\.stagedCounts))
    }

    private func serve(_ listener: Int32) {
        defer { serverStopped.signal() }
        while !shouldStop {
            // No timeout: a client, or the stop signal (then the loop ends).
            guard case .ready = (try? stopSignal.wait(for: listener, timeout: nil)) ?? .timedOut else { continue }
            // Only this recorder's own user is answered (peer credentials).
            guard let client = ControlSocket.accept(listener) else { continue }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let reply: ControlReply
            if let line = try? ControlSocket.readLine(client),
                let request = try? JSONDecoder().decode(ControlRequest.self, from: line)
            {
                reply = command(request)
            } else {
                reply = ControlReply(ok: false, failure: ControlFailure(kind: .badRequest, message: "unreadable request"))
            }
            if let data = try? JSONEncoder().encode(reply) { try? ControlSocket.writeAll(client, data + Data([0x0A])) }
            close(client)
        }
    }
}
