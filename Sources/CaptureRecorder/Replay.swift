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
        let committer = Committer(store: store)
        var driver = Driver(replay: self, store: store, committer: committer)
        do {
            try file.forEachRecord { record, line in try driver.take(record, line: line) }
            try driver.finish()
            try committer.drain()
        } catch {
            try? committer.drain()
            if let id = driver.measurement { try? store.delete(id) }
            if case .illegal(let line, let lifecycleError) = error as? DriverError {
                throw TraceFileError.malformed(
                    path: path, TraceError(line: line, expected: "a legal lifecycle mark", found: "\(lifecycleError)"))
            }
            throw error
        }
        guard let id = driver.measurement else {
            throw TraceFileError.malformed(path: path, TraceError(line: 1, expected: "at least one record", found: ""))
        }
        return id
    }

    enum DriverError: Error {
        case illegal(line: Int, LifecycleError)
    }

    private struct Driver {
        let replay: Replay
        let store: Store
        let committer: Committer
        var engine = Recording()
        var measurement: Int64?
        var nextFlush: Int64 = 0
        var lastTime: Int64 = 0
        var stopped = false
        var pacing: (wall: Int64, trace: Int64)?

        init(replay: Replay, store: Store, committer: Committer) {
            self.replay = replay
            self.store = store
            self.committer = committer
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
                if case .mark(.start, _) = record { return }
            }
            pace(to: time)
            lastTime = max(lastTime, time)
            switch record {
            case .sample(let sample):
                if time >= nextFlush {
                    try committer.submit(engine.takeFlush(), to: measurement!)
                    nextFlush = time - (time - nextFlush) % replay.flushInterval + replay.flushInterval
                }
                engine.ingest(sample)
            case .mark(let command, _):
                try committer.submit(try apply(command, at: time, line: line), to: measurement!)
                if command == .stop { stopped = true }
            }
        }

        mutating func finish() throws {
            guard let measurement, !stopped else { return }
            try committer.submit(try apply(.stop, at: lastTime, line: 0), to: measurement)
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

/// Commits flushes on a thread of its own, in the order they were submitted, so that parsing the
/// next second of a trace overlaps with encoding and committing the last one. At most a few
/// flushes wait at any time, which bounds memory. The first failure stops all later commits and
/// is thrown by the next `submit` or by `drain`.
final class Committer: @unchecked Sendable {
    private let store: Store
    private let queue = DispatchQueue(label: "capture.replay.commit")
    private let slots = DispatchSemaphore(value: 4)
    private let lock = NSLock()
    private var failure: (any Error)?

    init(store: Store) {
        self.store = store
    }

    func submit(_ flush: Flush, to measurement: Int64) throws {
        if let failure = lock.withLock({ failure }) { throw failure }
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard lock.withLock({ failure == nil }) else { return }
            do {
                try store.commit(flush, to: measurement)
            } catch {
                lock.withLock { failure = error }
            }
        }
    }

    /// Waits for every submitted flush; throws the first failure.
    func drain() throws {
        queue.sync {}
        if let failure = lock.withLock({ failure }) { throw failure }
    }
}
