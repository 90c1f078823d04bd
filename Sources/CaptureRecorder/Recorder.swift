package import CaptureCore
package import CaptureSensors
package import CaptureStorage
import Foundation
import Glibc
import Synchronization

/// The live recorder: sources → recording → store, driven over the control socket. It drives a
/// ``RecorderStateMachine``, which decides everything; the recorder only feeds it events and
/// performs the actions it returns.
///
/// One recorder per data directory (it holds ``RecorderLock``). Its threads:
/// - each source runs on its own, handing samples to its ``Inbox`` through a sink; it never
///   waits for the recorder;
/// - the control server takes commands (`capture pause`, `status`), and a signal is a `stop`;
/// - the driver thread wakes once per flush interval (a `flush due` event) and whenever actions
///   are queued, and performs them in the order they were decided: stage and commit, move the
///   measurement onto GNSS time, journal and trace lines, finish.
///
/// Every event first takes in what the sources handed over, then runs the state machine under
/// its lock and queues the actions; no lock is held across I/O (the driver thread alone touches
/// the store, the flush log, the journal and the trace, in ``Lane``). A command's reply waits
/// until its actions were performed, so `capture pause` returns once the pause is durable.
///
/// If a commit fails (a full disk, say) and pruning as ``RetentionPolicy`` allows does not help,
/// the recorder stops capturing and ``run(handlingSignals:)`` returns that error; the
/// measurement stays open and `capture stop` or `capture resume` takes it from there.
package final class Recorder: Sendable {
    package let directory: String
    package let store: Store
    package let flushInterval: Int64
    /// What may be removed when the store is full (`retention:` in the config file); `nil`:
    /// nothing, a full store ends the recording (exit 73).
    package let retention: RetentionPolicy?
    /// The most bytes the recorder's connection may grow the database to (the store's
    /// `maximumSize`), set again once a store found over it was pruned (``openStaging()``).
    let ceiling: Int64?
    /// Replaced once by a recovery (the lifecycle-driving ones continue), before ``run(handlingSignals:)``.
    let sources: Mutex<[any SampleSource]>
    let inboxes: [Inbox]
    /// The decisions; every event goes through here.
    let machine: Mutex<RecorderStateMachine>
    /// Actions decided and not yet performed, in order.
    let work = WorkQueue()
    /// What only the driver thread touches while the recorder runs (setup touches it before).
    let lane: Mutex<Lane>
    /// What the driver thread publishes for `status`: read without waiting for it.
    let published = Mutex(Published())
    let startedAt: Int64
    /// The time, Unix ms: the wall clock, or a simulated one (`capture-faults simulate`).
    let clock: @Sendable () -> Int64
    /// The trace being recorded (`--record-trace`), for `status`.
    let tracePath: String?
    /// Called on the driver thread with each ride that ended and was kept (`ride.detect: auto`):
    /// the automatic delivery.
    let rideEnded: @Sendable (Int64) -> Void
    /// The heartbeat's interval and push (``init(directory:store:sources:flushInterval:trace:gnssTime:retention:ceiling:inboxCapacity:ride:rideEnded:heartbeat:board:indicator:button:clock:hostSynchronized:)``).
    let heartbeat: (every: Int64, beat: @Sendable () -> Void)?
    /// The root under which the board's power is read at each flush wake-up (``BoardPower``);
    /// nil where the board says nothing of it.
    let board: String?
    /// The LEDs that show the recorder's state, given back at its end (``indicate()``).
    let indicator: IndicatorLEDs?
    /// Whether writing the LEDs failed: said once, and the LEDs are left alone after it.
    let indicatorFailed = Atomic(false)
    /// The rider's button, read while the run lasts.
    let button: ButtonReader?

    let done = DispatchSemaphore(value: 0)
    /// Given at the end: wakes the sources and the control server, which wait in poll with its
    /// descriptor rather than on short timers.
    let stopSignal = StopSignal()
    /// Signalled when the control server has answered its last request and stopped.
    let serverStopped = DispatchSemaphore(value: 0)
    private let listener = Atomic<Int32>(-1)

    /// Where the control socket and the pid file are (not in the data directory).
    package let runtime: RuntimeDirectory

    /// The socket the recorder of the data directory `directory` listens on, in its
    /// ``RuntimeDirectory``.
    package static func socketPath(directory: String) -> String { RuntimeDirectory(dataDirectory: directory).controlSocket }

    /// Samples an inbox holds by default: about a minute of a 1 kHz device, 2.6 MB.
    package static let defaultInboxCapacity = 65_536

    /// - Parameters:
    ///   - trace: where to also write what the sources delivered (`--record-trace`).
    ///   - retention: what may be pruned when the store is full; with a `max_store_size` the
    ///     recorder keeps the store within it as a power cut would leave it (``StoreBudget``).
    ///   - ceiling: the store's `maximumSize`, if it was opened with one.
    ///   - inboxCapacity: the samples each source's inbox holds until the recorder takes them
    ///     in; more are dropped and counted as lost.
    ///   - ride: where rides begin and end; with `ride.detect: auto` call ``arm(modality:)``.
    ///   - rideEnded: given each ride that ended and was kept, on the driver thread.
    ///   - heartbeat: `beat` is called on the driver thread at its start and then at the first
    ///     flush `every` ms later, and so on: no wake-up of its own.
    ///   - indicator: the LEDs that show the recorder's state (`indicator.leds`), given back
    ///     at the end.
    ///   - button: the rider's button (`button.*`), read on a thread of its own while the run lasts.
    ///   - board: the root under which the board's power is read at each flush wake-up (`/`;
    ///     nil: not read); under-voltage is journaled and counted once per measurement.
    ///   - clock: the time, Unix ms (the wall clock; a simulation's own).
    ///   - hostSynchronized: whether the host clock is synchronised (default: asked of the host).
    package init(
        directory: String, store: Store, sources: [any SampleSource], flushInterval: Int64, trace: sending TraceTap? = nil,
        gnssTime: GNSSTimePolicy = .auto, retention: RetentionPolicy? = nil, ceiling: Int64? = nil,
        inboxCapacity: Int = Recorder.defaultInboxCapacity, ride: RideSettings = .standard,
        rideEnded: @escaping @Sendable (Int64) -> Void = { _ in },
        heartbeat: (every: Int64, beat: @Sendable () -> Void)? = nil, board: String? = nil,
        indicator: IndicatorLEDs? = nil, button: ButtonReader? = nil, clock: @escaping @Sendable () -> Int64 = WallClock.now, hostSynchronized: Bool? = nil
    ) {
        self.clock = clock
        startedAt = clock()
        self.rideEnded = rideEnded
        self.heartbeat = heartbeat
        self.board = board.flatMap { BoardPower(root: $0).reports ? $0 : nil }
        self.indicator = indicator
        self.button = button
        self.directory = directory
        runtime = RuntimeDirectory(dataDirectory: directory)
        self.store = store
        self.flushInterval = flushInterval
        self.retention = retention
        self.ceiling = ceiling
        self.sources = Mutex(sources)
        inboxes = sources.map { _ in Inbox(capacity: inboxCapacity) }
        machine = Mutex(
            RecorderStateMachine(
                sources: sources.map(RecorderStateMachine.SourceInfo.init), flushInterval: flushInterval,
                gnssTime: gnssTime, hostSynchronized: hostSynchronized ?? HostClock.isSynchronized(), tracing: trace != nil,
                canPrune: retention != nil, ride: ride))
        tracePath = trace?.path
        lane = Mutex(Lane(trace: trace))
    }

    // MARK: - Beginning

    /// Starts a new measurement now. Returns its id.
    package func startNew(modality: Modality) throws -> Int64 {
        try openStaging()
        let now = clock()
        try performNow(try machine.withLock { machine throws(LifecycleError) in try machine.start(modality: modality, at: now) })
        let id = try lane.withLock { lane throws(StoreError) in
            guard let id = lane.measurement else { throw StoreError.cannotOpen(path: directory, reason: "no measurement") }
            return id
        }
        try performNow(machine.withLock { $0.began(measurement: id, at: now) })
        return id
    }

    /// Waits armed for motion (`ride.detect: auto`): nothing is begun until a ride is. A store
    /// with no room for rides (full of what may not go) is waited out armed, writing nothing
    /// (``RecorderStateMachine/outOfRoom(at:)``).
    package func arm(modality: Modality) throws(StoreError) {
        try openStaging()
        let now = clock()
        let staged = lane.withLock { $0.staged?.stagedWeight ?? 0 }
        if !hasRoom(staged: staged, toResume: false) { _ = machine.withLock { $0.outOfRoom(at: now) } }
        // The ids of the rides to come, reserved while the store is free (likely, at a start).
        try performNow(machine.withLock { $0.arm(modality: modality, at: now) })
    }

    /// Continues the open measurement after its recorder died (``RecorderStateMachine/recover(_:at:)``).
    /// Only reads the database: what the dead recorder left in the flush log and the recovery
    /// wait there while another process holds it.
    package func recoverInterrupted() throws -> Int64 {
        try openStaging()
        guard var (interrupted, _) = try interruptedNow() else { throw LifecycleError.notOpen(state: .idle) }
        // Under-voltage its recorder counted is not counted again (the journal line is durable
        // before the count's record is staged).
        interrupted.sawUnderVoltage = JournalLine.lines(of: Store.journalText(of: interrupted.id, in: directory) ?? "")
            .contains { $0.event == "under_voltage" }
        // Its journal is registered already (by its start, or its `begin` step in the log).
        lane.withLock { $0.open(measurement: interrupted.id, directory: directory, store: store, registered: false) }
        let now = clock()
        try performNow(try machine.withLock { machine throws(LifecycleError) in try machine.recover(interrupted, at: now) })
        return interrupted.id
    }

    /// Finishes the open measurement after its recorder died, as a power cut ends a ride
    /// (``RecorderStateMachine/endInterrupted(_:at:)``); then ``arm(modality:)`` or
    /// ``startNew(modality:)``. Returns its id, `nil` when none was open. Only reads the
    /// database, as ``recoverInterrupted()``.
    @discardableResult
    package func endInterrupted() throws -> Int64? {
        try openStaging()
        guard let (interrupted, _) = try interruptedNow() else { return nil }
        let now = clock()
        try performNow(try machine.withLock { machine throws(LifecycleError) in try machine.endInterrupted(interrupted, at: now) })
        return interrupted.id
    }

    /// The interrupted measurement: the database's open one with what the flush log holds for it.
    private func interruptedNow() throws(StoreError) -> (RecorderStateMachine.Interrupted, sources: [String])? {
        try Recovery.interrupted(store: store, after: lane.withLock { $0.staged?.records ?? [] })
    }

    private func openStaging() throws(StoreError) {
        // Once: the log's lock is the recorder's for its life.
        guard lane.withLock({ $0.staged == nil }) else { return }
        // Other writers have no ceiling (a recovery at boot, a sync pass, the flush log applied
        // by whoever opened the store first): a store found over its budget is pruned before
        // the ceiling is set again, which SQLite never sets below the database's size.
        keepWithinBudget(staged: 0)
        if let ceiling { try store.limitSize(to: ceiling) }
        // What a dead recorder left, pruning for room where the store is full; what another
        // process keeps out stays staged (below).
        applyLeftFlushLog()
        // Setup, before the driver thread runs: nobody else waits for the lane.
        try lane.withLock { lane throws(StoreError) in
            guard lane.staged == nil else { return }
            let staged = try StagedCommits(store: store, directory: directory)
            lane.staged = staged
            publishStaged(staged)
            let reserved = (try? store.reservedMeasurementIDs()) ?? []
            machine.withLock { $0.leftInLog(staged.records, reserved: reserved) }
        }
    }

    /// Performs actions on the calling thread, before the driver thread runs; a failure is
    /// thrown, but for a commit of what is staged that another process keeps out: that waits
    /// in the flush log, as while recording (``RecorderStateMachine/storeFailed(_:during:)``);
    /// and, with `ride.detect: auto`, for one that finds the store full with nothing to prune:
    /// that waits there too, and the recorder waits armed for room (a recovery's continued
    /// ride ends, ``RecorderStateMachine/outOfRoom(at:)``).
    private func performNow(_ actions: [RecorderStateMachine.Action]) throws(StoreError) {
        for action in actions {
            do {
                try lane.withLock { lane throws(StoreError) in try perform(action, on: &lane, retry: false) }
            } catch {
                guard case .commitStaged = action else { throw error }
                switch error {
                case .busy:
                    _ = machine.withLock { $0.storeFailed(error, during: action) }
                case .diskFull where machine.withLock({ $0.waitsForRoom }) && pruneForRoom() == 0:
                    let now = clock()
                    try performNow(machine.withLock { $0.outOfRoom(at: now) })
                case .diskFull where machine.withLock({ $0.waitsForRoom }):
                    // Room was made: the same commit again.
                    try performNow([action])
                default: throw error
                }
            }
        }
    }

    // MARK: - Socket

    /// Binds the control socket and writes the pid file, in the ``runtime`` directory. Call
    /// before reporting readiness, so that a command sent right after `capture start` returns
    /// finds the recorder listening.
    ///
    /// - Throws: ``RuntimeDirectoryError`` when the runtime directory cannot be used or the
    ///   socket cannot be bound there.
    package func listen() throws(RuntimeDirectoryError) {
        try runtime.create()
        do {
            listener.store(try ControlSocket.listen(at: runtime.controlSocket), ordering: .releasing)
        } catch {
            throw RuntimeDirectoryError(path: runtime.controlSocket, problem: .cannotBind("\(error)"))
        }
        if let file = try? AtomicFile(path: runtime.pidFile) {
            do {
                try file.append(Array("\(getpid())\n".utf8))
                try file.commit()
            } catch {
                file.discard()
            }
        }
    }

    /// Releases what ``listen()`` took, when the recorder will not run after all.
    package func abandon() {
        let fd = listener.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { close(fd) }
        unlink(runtime.controlSocket)
        unlink(runtime.pidFile)
    }

    // MARK: - Running

    /// How long ``run(handlingSignals:)`` waits, after the measurement ended, for the sources
    /// to notice and return (an IIO source disables its buffer on the way out). IIO, NMEA and
    /// gpsd sources wake on the stop signal at once; a gpsd connect can take 2 s, which is not
    /// waited for.
    static let sourceGracePeriod: DispatchTimeInterval = .seconds(1)

    /// Runs until the measurement is stopped (by command, a source's `stop` mark or, with
    /// `handlingSignals`, SIGTERM/SIGINT) or a commit fails. Returns the failure, if any.
    /// ``listen()`` must have been called.
    package func run(handlingSignals: Bool = true) -> StoreError? {
        let listener = self.listener.load(ordering: .acquiring)
        defer { abandon() }
        defer {
            // A store that failed is a problem a person must fix: the LEDs are left showing it.
            if machine.withLock({ $0.failure }) != nil { indicator?.leaveShowingProblem() } else { indicator?.restore() }
        }
        let signals = (handlingSignals ? [SIGTERM, SIGINT] : []).map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in self.shutdown() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        let sourcesDone = DispatchGroup()
        for (index, source) in sources.withLock({ $0 }).enumerated() {
            sourcesDone.enter()
            startThread {
                do {
                    try source.run(into: Sink(recorder: self, index: index))
                    self.handle { machine in
                        machine.sourceEnded(index)
                        return []
                    }
                } catch {
                    let now = WallClock.now()
                    self.handle { machine in machine.sourceFailed(index, error: "\(error)", at: now) }
                }
                sourcesDone.leave()
            }
        }
        startThread { self.drive() }
        startThread { self.serve(listener) }
        if let button { startThread { self.read(button) } }
        done.wait()
        // The request that stopped the measurement is answered before the process exits.
        serverStopped.wait()
        settleWaitingEvents()
        // Ids reserved for rides that never began go back, once no begin waits in the log.
        if machine.withLock({ !$0.eventsWaiting && $0.failure == nil }) {
            try? store.releaseReservedMeasurementIDs(patience: StagedCommits.patience)
        }
        _ = sourcesDone.wait(timeout: .now() + Self.sourceGracePeriod)
        return machine.withLock { $0.failure }
    }

    /// Each source with its error, when the run ended because every source failed before any
    /// delivered a sample (``RecorderStateMachine/nothingRecorded``); `nil` otherwise.
    package var nothingRecorded: [String]? { machine.withLock { $0.nothingRecorded } }

    private func startThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Where a source hands what it reads: samples to its inbox (no lock of the recorder's),
    /// notes and marks as events.
    struct Sink: SampleSink {
        let recorder: Recorder
        let index: Int
        var stop: StopSignal { recorder.stopSignal }
        /// Asked by a trace as it begins (not before: a source starts without waiting for the lock).
        var measurementStart: Int64 { recorder.machine.withLock { $0.measurementStart } }

        func deliver(_ samples: [Sample]) { recorder.inboxes[index].put(samples) }

        func deliver(_ samples: [Sample], at time: Int64) { recorder.inboxes[index].put(samples, arrived: time) }

        func note(_ note: SourceNote) { recorder.handle { $0.note(note, from: index) } }

        func mark(_ command: LifecycleCommand, at time: Int64) {
            recorder.handle { machine in
                guard case .applied(let actions, _) = machine.command(command, at: time, by: .source(index)) else { return [] }
                return actions
            }
        }
    }

    /// Handles one event: takes in what the sources handed over, runs `event` on the state
    /// machine, and queues the actions (with `barrier`, signalled once they were performed).
    /// Only the state lock is held, never across I/O.
    func handle(barrier: DispatchSemaphore? = nil, _ event: (inout RecorderStateMachine) -> [RecorderStateMachine.Action]) {
        machine.withLock { machine in
            var actions = takeDelivered(into: &machine)
            actions += event(&machine)
            work.push(actions, barrier: barrier)
        }
    }

    /// Takes what the sources handed over into the recording. Call with the state lock held.
    private func takeDelivered(into machine: inout RecorderStateMachine) -> [RecorderStateMachine.Action] {
        var actions: [RecorderStateMachine.Action] = []
        for (index, inbox) in inboxes.enumerated() {
            let contents = inbox.take()
            guard !contents.reads.isEmpty || contents.dropped > 0 else { continue }
            actions += machine.take(contents.reads, dropped: contents.dropped, capacity: inbox.capacity, from: index)
        }
        return actions
    }

    /// The driver thread: a `flush due` event once per flush interval, and the queued actions
    /// performed in order as they come, until the recording has finished.
    private func drive() {
        var deadline = clock() + flushInterval
        var nextBeat = clock()
        while true {
            let left = deadline - clock()
            if left > 0 {
                work.wait(milliseconds: left)
            } else {
                if let board, BoardPower(root: board).underVoltageNow { handle { $0.underVoltage(at: clock()) } }
                handle { $0.flushDue(at: clock()) }
                indicate()
                deadline = clock() + flushInterval
                if let heartbeat, clock() >= nextBeat {
                    nextBeat = clock() + heartbeat.every
                    heartbeat.beat()
                }
            }
            if performQueued() { return }
        }
    }
}
