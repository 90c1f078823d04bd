import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Collects what a source delivers, from its thread.
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var storedSamples: [Sample] = []
    private var storedNotes: [SourceNote] = []

    var samples: [Sample] { lock.withLock { storedSamples } }
    var notes: [SourceNote] { lock.withLock { storedNotes } }

    func deliver(_ sample: Sample) { lock.withLock { storedSamples.append(sample) } }
    func note(_ note: SourceNote) { lock.withLock { storedNotes.append(note) } }

    var motion: [(MotionSensor, MotionSample)] {
        samples.compactMap { if case .motion(let sensor, let value) = $0 { (sensor, value) } else { nil } }
    }
    var fixes: [Fix] { samples.compactMap { if case .fix(let fix) = $0 { fix } else { nil } } }
    var pressures: [PressureSample] { samples.compactMap { if case .pressure(let p) = $0 { p } else { nil } } }
    var lost: Int { notes.reduce(0) { if case .lost(let n, _) = $1 { $0 + n } else { $0 } } }
    var skipped: Int { notes.reduce(0) { if case .skipped(let n) = $1 { $0 + n } else { $0 } } }
    var gnssStates: [GNSSFixState] { notes.compactMap { if case .gnss(let state) = $0 { state } else { nil } } }
}

/// A stop flag shared with a source's thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var isSet: Bool { lock.withLock { stopped } }
    func set() { lock.withLock { stopped = true } }
}

/// Runs `body` on a new thread; `join()` waits for it.
final class Worker: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in
            body()
            done.signal()
        }
        thread.start()
    }

    /// Waits up to `seconds`; returns whether the thread finished.
    @discardableResult
    func join(seconds: Double = 20) -> Bool {
        done.wait(timeout: .now() + seconds) == .success
    }
}

/// Packs scan bytes.
struct ScanBytes {
    var bytes: [UInt8] = []

    mutating func le<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func be<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    mutating func pad(to size: Int) { while bytes.count % size != 0 { bytes.append(0) } }
}

/// Writes chunks into a FIFO from another thread, after the reader opened it; records the
/// buffer's `enable` value at that moment.
final class FIFOWriter: @unchecked Sendable {
    private let worker: Worker

    init(path: String, chunks: [[UInt8]], enableFile: String, pauseMicroseconds: UInt32 = 2_000) {
        let box = Box()
        worker = Worker {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            box.set((try? String(contentsOfFile: enableFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines))
            for chunk in chunks {
                _ = chunk.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                usleep(pauseMicroseconds)
            }
            close(fd)
        }
        self.box = box
    }

    private let box: Box
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        func set(_ v: String?) { lock.withLock { value = v } }
        var get: String? { lock.withLock { value } }
    }

    /// Waits for the writer; returns the `enable` value it saw.
    func finish() -> String? {
        worker.join()
        return box.get
    }
}
