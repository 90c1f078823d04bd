package import CaptureCore
import CaptureSensors
import Foundation
import Synchronization
package import CaptureStorage

/// Replays a trace into a finished measurement through the recording engine, deterministically:
/// timestamps come from the trace and the engine is flushed once per flush interval of trace
/// time, so the same trace always gives the same stored data.
package struct Replay: Sendable {
    package var path: String
    /// Overrides the trace's initial modality.
    package var modality: Modality?
    /// Flush interval in trace milliseconds.
    package var flushInterval: Int64
    /// `nil` replays as fast as possible; otherwise trace time runs `speed` times faster than
    /// wall time.
    package var speed: Double?

    package init(path: String, modality: Modality? = nil, flushInterval: Int64 = 1000, speed: Double? = nil) {
        self.path = path
        self.modality = modality
        self.flushInterval = flushInterval
        self.speed = speed
    }

    /// Replays into `store` and returns the new measurement's id.
    ///
    /// On any error the measurement is deleted again, so nothing is left half-stored.
    package func run(into store: Store) throws -> Int64 {
        // Native traces, NMEA logs, gpsd JSON logs and GPX, told apart by content.
        let file = try TraceInput(path: path)
        if let open = try store.openMeasurement() { throw StoreError.alreadyOpen(open.id) }
        // Two stages on two threads: this one parses the trace, runs the recording engine and
        // encodes each flush; the other commits the flushes, in order. What is stored is exactly
        // what one thread would store.
        let pipe = FlushPipe()
        let committer = Committer(store: store, sources: "trace:\(path)", pipe: pipe)
        let thread = Thread { committer.run() }
        thread.stackSize = 1 << 20
        thread.start()
        var driver = Driver(replay: self, pipe: pipe)
        var parseError: (any Error)?
        do {
            try file.forEachRecord { record, line in try driver.take(record, line: line) }
            try driver.finish()
        } catch {
            parseError = error
        }
        pipe.close()
        committer.finished.wait()
        // The committer's error comes from an earlier flush than any error of this thread.
        if let error = (committer.failure as (any Error)?) ?? parseError {
            if let id = committer.measurement { try? store.delete(id) }
            if case .illegal(let line, let lifecycleError) = error as? DriverError {
                throw TraceFileError.malformed(
                    path: path, TraceError(line: line, expected: "a legal lifecycle mark", found: "\(lifecycleError)"))
            }
            throw error
        }
        guard let id = committer.measurement else {
            let expected =
                switch file.format {
                case .native: "at least one record"
                case .nmea: "at least one valid fix (this NMEA log has none)"
                case .gpsdJSON: "at least one valid fix (this gpsd JSON log has none)"
                case .gpx: "at least one point with a time (this GPX has none)"
                case .geojson: "at least one LineString point with a time (this GeoJSON has none)"
                case .csv: "at least one location in a track (this CSV has none)"
                }
            throw TraceFileError.malformed(path: path, TraceError(line: 1, expected: expected, found: ""))
        }
        return id
    }

    enum DriverError: Error {
        case illegal(line: Int, LifecycleError)
    }

    /// Runs the recording engine over the trace's records and hands each flush, encoded, to the
    /// committer.
    fileprivate struct Driver {
        let replay: Replay
        let pipe: FlushPipe
        var engine = Recording()
        var started = false
        var nextFlush: Int64 = 0
        var lastTime: Int64 = 0
        /// The time of the latest lifecycle mark; marks may not go back in time.
        var lastMark: Int64 = .min
        var stopped = false
        var pacing: (wall: Int64, trace: Int64)?

        init(replay: Replay, pipe: FlushPipe) {
            self.replay = replay
            self.pipe = pipe
        }

        mutating func take(_ record: TraceRecord, line: Int) throws {
            guard !stopped else {
                throw TraceFileError.malformed(
                    path: replay.path, TraceError(line: line, expected: "nothing after the stop mark", found: ""))
            }
            let time = record.timestamp
            if !started {
                var initial = replay.modality ?? .unknown
                if case .mark(.start(let traced), _) = record { initial = replay.modality ?? traced }
                try pipe.put(.begin(EncodedFlush(apply(.start(initial), at: time, line: line))))
                started = true
                nextFlush = time + replay.flushInterval
                lastTime = time
                if case .mark(.start, _) = record {
                    lastMark = time
                    return
                }
            }
            pace(to: time)
            lastTime = max(lastTime, time)
            switch record {
            case .sample(let sample):
                if time >= nextFlush {
                    try emit(engine.takeFlush())
                    nextFlush = time - (time - nextFlush) % replay.flushInterval + replay.flushInterval
                }
                let rejected = engine.rejectedUnstorable
                engine.ingest(sample)
                guard engine.rejectedUnstorable == rejected else {
                    throw TraceFileError.malformed(
                        path: replay.path,
                        TraceError(
                            line: line,
                            expected: "a value the store can hold (motion within about ±10⁶ m/s² or rad/s, ±10⁷ µT)",
                            found: ""))
                }
            case .mark(let command, _):
                guard time >= lastMark else {
                    throw TraceFileError.malformed(
                        path: replay.path,
                        TraceError(line: line, expected: "a mark not earlier than the previous one (\(lastMark))", found: "\(time)"))
                }
                lastMark = time
                try emit(apply(command, at: time, line: line))
                if command == .stop { stopped = true }
            }
        }

        mutating func finish() throws {
            guard started, !stopped else { return }
            try emit(apply(.stop, at: lastTime, line: 0))
        }

        private func emit(_ flush: Flush) throws {
            guard !flush.isEmpty else { return }
            try pipe.put(.commit(EncodedFlush(flush)))
        }

        private mutating func apply(_ command: LifecycleCommand, at time: Int64, line: Int) throws -> Flush {
            do {
                return try engine.apply(command, at: time)
            } catch {
                throw DriverError.illegal(line: line, error)
            }
        }

        /// With a speed, waits until wall time has caught up with trace time.
        private mutating func pace(to time: Int64) {
            guard let speed = replay.speed else { return }
            guard let pacing else {
                self.pacing = (WallClock.now(), time)
                return
            }
            let due = pacing.wall + Int64((Double(time - pacing.trace) / speed).rounded())
            _ = WallClock.sleep(until: due, shouldStop: { false })
        }
    }
}

/// Encoded flushes handed from the engine's thread to the committing one, a few at a time
/// (bounded memory). A failure on the committing side stops the producer at its next hand-over.
final class FlushPipe: Sendable {
    enum Step: Sendable {
        /// Creates the measurement with its first flush.
        case begin(EncodedFlush)
        case commit(EncodedFlush)
    }

    private struct State {
        var steps: [Step] = []
        var closed = false
        var stopped = false
    }

    static let capacity = 16
    /// Waited on for room and for steps; `state` is only touched with it held.
    private let condition = NSCondition()
    private let state = Mutex(State())

    struct Stopped: Error {}

    func put(_ step: Step) throws {
        condition.lock()
        defer { condition.unlock() }
        while state.withLock({ $0.steps.count >= Self.capacity && !$0.stopped }) { condition.wait() }
        try state.withLock { state throws(Stopped) in
            if state.stopped { throw Stopped() }
            state.steps.append(step)
        }
        condition.broadcast()
    }

    /// Every step waiting, in order (taking them all at once spares a wake-up per flush), or
    /// `nil` once the producer closed the pipe and everything was taken.
    func take() -> [Step]? {
        condition.lock()
        defer { condition.unlock() }
        while state.withLock({ $0.steps.isEmpty && !$0.closed }) { condition.wait() }
        let steps = state.withLock { state in
            defer { state.steps.removeAll(keepingCapacity: true) }
            return state.steps
        }
        guard !steps.isEmpty else { return nil }
        condition.broadcast()
        return steps
    }

    func close() {
        condition.withLock {
            state.withLock { $0.closed = true }
            condition.broadcast()
        }
    }

    /// The committer gave up: wake and refuse the producer.
    func stop() {
        condition.withLock {
            state.withLock { state in
                state.stopped = true
                state.steps.removeAll()
            }
            condition.broadcast()
        }
    }
}

/// Commits the pipe's flushes on its own thread.
private final class Committer: Sendable {
    let store: Store
    let sources: String
    let pipe: FlushPipe
    /// What the committing thread found: the measurement it began, and the failure that ended it.
    private struct Outcome {
        var measurement: Int64?
        var failure: StoreError?
    }
    private let outcome = Mutex(Outcome())
    /// Signalled when ``run()`` has returned.
    let finished = DispatchSemaphore(value: 0)

    init(store: Store, sources: String, pipe: FlushPipe) {
        self.store = store
        self.sources = sources
        self.pipe = pipe
    }

    /// The measurement begun, if any (read after ``finished``).
    var measurement: Int64? { outcome.withLock { $0.measurement } }
    /// Why committing stopped, if it did (read after ``finished``).
    var failure: StoreError? { outcome.withLock { $0.failure } }

    /// Bytes of samples gathered before they are committed in one transaction: as in live
    /// capture (``StagedCommits/maximumWeight``), every transaction rewrites the pages it
    /// appends to, so one per flush wrote the WAL full and had it copied back (with two
    /// `fdatasync`s) every few minutes of trace; those waits were about half of a replay's time.
    /// A replay keeps nothing of a measurement it could not finish, so no flush of it needs to be
    /// durable on its own; the flushes and their rows are the same.
    static let maximumWeight = StagedCommits.maximumWeight

    func run() {
        defer { finished.signal() }
        var measurement: Int64?
        do throws(StoreError) {
            var gathered: [EncodedFlush] = []
            var weight = 0
            while let steps = pipe.take() {
                for step in steps {
                    switch step {
                    case .begin(let flush):
                        let id = try store.begin(flush, sources: sources)
                        measurement = id
                        outcome.withLock { $0.measurement = id }
                    case .commit(let flush):
                        guard measurement != nil else { continue }
                        gathered.append(flush)
                        weight += flush.weight
                    }
                }
                if let measurement, weight >= Self.maximumWeight {
                    try store.commit(gathered, to: measurement)
                    gathered.removeAll(keepingCapacity: true)
                    weight = 0
                }
            }
            if let measurement { try store.commit(gathered, to: measurement) }
        } catch {
            outcome.withLock { $0.failure = error }
            pipe.stop()
            while pipe.take() != nil {}
        }
    }
}
