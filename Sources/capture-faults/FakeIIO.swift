import Foundation
import Glibc

/// A fake IIO accelerometer under a temporary sysfs root, as scripts/bench-iio builds it: the
/// attribute files of a buffered device (three s16 channels and an s64 realtime timestamp, 16
/// bytes per scan) and `dev/iio:device0` as a FIFO, fed by a writer thread at `rate` Hz on an
/// absolute schedule. Like the kernel, it hands scans over in groups of the `buffer0/watermark`
/// the recorder wrote (the kernel signals POLLIN only once that many are queued; 1 if none was
/// written), each scan stamped with its own sampling time. The writer remembers when every scan
/// was handed over (the group's write time, not the scan's sampling time: a scan still held in
/// the kernel's buffer has not reached the recorder), which is what the recorder's losses are
/// measured against.
final class FakeIIO: @unchecked Sendable {
    let root: String
    let rate: Int
    static let device = "iio:device0"

    private let lock = NSLock()
    private var written: [Int64] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    init(root: String, rate: Int) throws {
        self.root = root
        self.rate = rate
        let directory = root + "/sys/bus/iio/devices/" + Self.device
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory + "/buffer0", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        var files: [String: String] = [
            "name": "faultaccel", "sampling_frequency_available": "50 100 200 400", "sampling_frequency": "50",
            "current_timestamp_clock": "realtime", "buffer0/enable": "0", "buffer0/length": "0", "buffer0/watermark": "1",
            "buffer0/in_timestamp_en": "0", "buffer0/in_timestamp_index": "3",
            "buffer0/in_timestamp_type": "le:s64/64>>0",
        ]
        for (index, axis) in ["x", "y", "z"].enumerated() {
            files["in_accel_\(axis)_raw"] = "0"
            files["buffer0/in_accel_\(axis)_en"] = "0"
            files["buffer0/in_accel_\(axis)_index"] = "\(index)"
            files["buffer0/in_accel_\(axis)_type"] = "le:s16/16>>0"
        }
        for (name, text) in files {
            try (text + "\n").write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        }
        guard mkfifo(root + "/dev/" + Self.device, 0o600) == 0 else {
            throw CampaignError("mkfifo \(root)/dev/\(Self.device): \(String(cString: strerror(errno)))")
        }
    }

    /// The `--source` spec of the device.
    var source: String { "iio:" + Self.device }

    /// Starts the writer: it waits for the recorder to open the FIFO, then writes one scan every
    /// 1/rate s until the reader is gone (EPIPE) or ``finish()``.
    func start() {
        started = true
        let thread = Thread { [self] in
            defer { done.signal() }
            let path = root + "/dev/" + Self.device
            let directory = root + "/sys/bus/iio/devices/" + Self.device
            var fd: Int32 = -1
            // Non-blocking open fails with ENXIO until a reader has the FIFO open.
            while fd < 0 {
                if lock.withLock({ stopped }) { return }
                fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd < 0 { usleep(5_000) }
            }
            defer { close(fd) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            // The recorder writes the watermark before it enables the buffer and opens the node.
            let watermarkText = try? String(contentsOfFile: directory + "/buffer0/watermark", encoding: .utf8)
            let watermark = max(1, Int(watermarkText?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 1)
            let period = 1.0 / Double(rate)
            let begin = Clock.now()
            var tick = 0
            var group: [UInt8] = []
            while !lock.withLock({ stopped }) {
                Clock.sleep(begin + Double(tick) * period - Clock.now())
                var spec = timespec()
                clock_gettime(CLOCK_REALTIME, &spec)
                let nanoseconds = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
                var scan = [UInt8](repeating: 0, count: 16)
                let values: [Int16] = [Int16(tick % 1000), Int16(-(tick % 1000)), 1000]
                for (index, value) in values.enumerated() {
                    scan[2 * index] = UInt8(truncatingIfNeeded: value)
                    scan[2 * index + 1] = UInt8(truncatingIfNeeded: value >> 8)
                }
                for byte in 0..<8 { scan[8 + byte] = UInt8(truncatingIfNeeded: nanoseconds >> (8 * byte)) }
                group += scan
                tick += 1
                if group.count < 16 * watermark { continue }
                let count = group.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if count != group.count { return }  // EPIPE: the recorder is gone
                clock_gettime(CLOCK_REALTIME, &spec)
                let handedOver = Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
                lock.withLock { written += repeatElement(handedOver, count: group.count / 16) }
                group.removeAll(keepingCapacity: true)
            }
        }
        thread.start()
    }

    /// Stops the writer (if the reader has not already gone) and waits for it.
    func finish() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if first, started { _ = done.wait(timeout: .now() + 10) }
    }

    /// The timestamps (Unix ms) of the scans written so far, ascending.
    var writtenTimes: [Int64] { lock.withLock { written } }
}
