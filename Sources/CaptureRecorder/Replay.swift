public import CaptureCore
import CaptureSensors
import Foundation
public import CaptureStorage

/// Replays a trace into a finished measurement through the recording engine, deterministically:
/// timestamps come from the trace and the engine is flushed once per flush interval of trace
/// time, so the same trace always gives the same stored data.
public struct Replay: Sendable {
    public var path: String
    /// Overrides the trace's initial modality.
    public var modality: Modality?
    /// Flush interval in trace milliseconds.
    public var flushInterval: Int64
    /// `nil` replays as fast as possible; otherwise trace time runs `speed` times faster than
    /// wall time.
    public var speed: Double?

    public init(path: String, modality: Modality? = nil, flushInterval: Int64 = 1000, speed: Double? = nil) {
        self.path = path
        self.modality = modality
        self.flushInterval = flushInterval
        self.speed = speed
    }

    /// Replays into `store` and returns the new measurement's id.
    ///
    /// On any error the measurement is deleted again, so nothing is left half-stored.
    public func run(into store: Store) throws -> Int64 {
        // Native traces, NMEA logs, gpsd JSON logs and GPX, told apart by content.
        let file = try TraceInput(path: path)
        if let open = try store.openMeasurement() { throw StoreError.alreadyOpen(open.id) }
        // Two stages on two threads: this one reads and parses lines into chunks; the other runs
        // the recording engine over them in file order, encodes and commits. The engine sees
        // exactly the sequence a single thread would, so the stored data is the same.
        let pipe = RecordPipe()
        let consumer = Consumer(driver: Driver(replay: self, store: store), pipe: pipe)
        let thread = Thread { consumer.run() }
        thread.stackSize = 1 << 20
        thread.start()
        var parseError: (any Error)?
        do {
            var chunk: [(TraceRecord, Int)] = []
            chunk.reserveCapacity(RecordPipe.chunkSize)
            try file.forEachRecord { record, line in
                chunk.append((record, line))
                if chunk.count == RecordPipe.chunkSize {
                    try pipe.put(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            if !chunk.isEmpty { try pipe.put(chunk) }
        } catch {
            parseError = error
        }
        pipe.close()
        consumer.finished.wait()
        let driver = consumer.driver
        // The consumer's error comes from an earlier line than any parse error still pending.
        if let error = consumer.failure ?? parseError {
            if let id = driver.measurement { try? store.delete(id) }
            if case .illegal(let line, let lifecycleError) = error as? DriverError {
                throw TraceFileError.malformed(
                    path: path, TraceError(line: line, expected: "a legal lifecycle mark", found: "\(lifecycleError)"))
            }
            throw error
        }
        guard let id = driver.measurement else {
            let expected =
                switch file.format {
                case .native: "at least one record"
                case .nmea: "at least one valid fix (this NMEA log has none)"
                case .gpsdJSON: "at least one valid fix (this gpsd JSON log has none)"
                case .gpx: "at least one point with a time (this GPX has none)"
                }
            throw TraceFileError.malformed(path: path, TraceError(line: 1, expected: expected, found: ""))
        }
        return id
    }

    enum DriverError: Error {
        case illegal(line: Int, LifecycleError)
    }

    fileprivate struct Driver {
        let replay: Replay
        let store: Store
        var engine = Recording()
        var measurement: Int64?
        var nextFlush: Int64 = 0
        var lastTime: Int64 = 0
        /// The time of the latest lifecycle mark; marks may not go back in time.
        var lastMark: Int64 = .min
        var stopped = false
        var pacing: (wall: Int64, trace: Int64)?

        init(replay: Replay, store: Store) {
            self.replay = replay
            self.store = store
        }

        mutating func take(_ record: TraceRecord, line: Int) throws {
            guard !stopped else {
                throw TraceFileError.malformed(
                    path: replay.path, TraceError(line: line, expected: "nothing after the stop mark", found: ""))
            }
            let time = record.timestamp
            if measurement == nil {
                var initial = replay.modality ?? .unknown
                if case .mark(.start(let traced), _) = record { initial = replay.modality ?? traced }
                let flush = try apply(.start(initial), at: time, line: line)
                measurement = try store.begin(flush, sources: "trace:\(replay.path)")
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
                    try store.commit(engine.takeFlush(), to: measurement!)
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
                try store.commit(try apply(command, at: time, line: line), to: measurement!)
                if command == .stop { stopped = true }
            }
        }

        mutating func finish() throws {
            guard let measurement, !stopped else { return }
            try store.commit(try apply(.stop, at: lastTime, line: 0), to: measurement)
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

/// Chunks of parsed records handed from the parsing thread to the engine's thread, at most a
/// few at a time (bounded memory). A failure on the engine's side stops the parser at its next
/// hand-over.
final class RecordPipe: @unchecked Sendable {
    static let chunkSize = 4096
    private let condition = NSCondition()
    private var chunks: [[(TraceRecord, Int)]] = []
    private var closed = false
    private var stopped = false

    struct Stopped: Error {}

    func put(_ chunk: [(TraceRecord, Int)]) throws {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= 4, !stopped { condition.wait() }
        if stopped { throw Stopped() }
        chunks.append(chunk)
        condition.broadcast()
    }

    /// The next chunk, or `nil` once the parser closed the pipe and everything was taken.
    func take() -> [(TraceRecord, Int)]? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty, !closed { condition.wait() }
        guard !chunks.isEmpty else { return nil }
        let chunk = chunks.removeFirst()
        condition.broadcast()
        return chunk
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// The consumer gave up: wake and refuse the producer.
    func stop() {
        condition.withLock {
            stopped = true
            chunks.removeAll()
            condition.broadcast()
        }
    }
}

/// Runs the replay driver over the pipe's chunks on its own thread.
private final class Consumer: @unchecked Sendable {
    var driver: Replay.Driver
    let pipe: RecordPipe
    /// Set before `finished` is signalled; read only after it.
    var failure: (any Error)?
    let finished = DispatchSemaphore(value: 0)

    init(driver: Replay.Driver, pipe: RecordPipe) {
        self.driver = driver
        self.pipe = pipe
    }

    func run() {
        defer { finished.signal() }
        // A local copy: a stored property of a class is checked for exclusive access on every
        // call, which costs more than the engine itself here.
        var driver = self.driver
        defer { self.driver = driver }
        do {
            while let chunk = pipe.take() {
                for (record, line) in chunk { try driver.take(record, line: line) }
            }
            try driver.finish()
        } catch {
            failure = error
            pipe.stop()
            while pipe.take() != nil {}
        }
    }
}
