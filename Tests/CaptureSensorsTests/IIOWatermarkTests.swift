import CaptureCore
import CaptureIIO
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The buffer watermark the source writes, the fallback for kernels without one, and stopping a
/// source that is blocked in poll with no timeout.
@Suite("IIO buffer watermark, its fallback, and the stop signal")
struct IIOWatermarkTests {
    /// A buffered accelerometer (3 × s16 + s64 timestamp, 16 bytes a scan) at up to 1 kHz;
    /// `watermark`: the initial text of `buffer0/watermark`, `nil` for a kernel without it.
    func makeDevice(_ root: FakeSysfs, watermark: String?) throws -> IIODevice {
        let id = "iio:device0"
        var files = [
            "name": "fakeaccel", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "0",
            "in_accel_scale": "1", "current_timestamp_clock": "realtime",
            "sampling_frequency_available": "50 100 200 1000", "sampling_frequency": "50",
            "buffer0/enable": "0", "buffer0/length": "0",
        ]
        if let watermark { files["buffer0/watermark"] = watermark }
        root.write(
            id, files, FakeSysfs.axes("accel", type: "le:s16/16>>0"),
            FakeSysfs.scanElement("timestamp", index: 3, type: "le:s64/64>>0"))
        root.makeNode(id)
        return try #require(IIODiscovery.device(id: id, root: root.path))
    }

    /// `count` scans, x = index, 1 ms apart.
    func scans(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for i in 0..<count {
            var scan = ScanBytes()
            scan.le(Int16(truncatingIfNeeded: i)); scan.le(Int16(0)); scan.le(Int16(0))
            scan.pad(to: 8)
            scan.le(Int64(1_781_424_000_000_000_000) + Int64(i) * 1_000_000)
            bytes += scan.bytes
        }
        return bytes
    }

    /// Opens the FIFO once the source has (so after it configured the device), reads what the
    /// kernel would know then (`watermark`, `length`, `enable`), writes `count` scans in groups
    /// of the watermark as the kernel signals them, and closes.
    final class KernelLikeWriter: @unchecked Sendable {
        private let worker: Worker

        init(root: FakeSysfs, id: String, bytes: [UInt8]) {
            let seenBox = Box()
            let node = root.node(id)
            let buffer = root.deviceDirectory(id) + "/buffer0/"
            worker = Worker {
                let fd = open(node, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { return }
                defer { close(fd) }
                var seen: [String: String] = [:]
                for name in ["watermark", "length", "enable"] {
                    seen[name] = (try? String(contentsOfFile: buffer + name, encoding: .utf8))?
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                }
                seenBox.set(seen)
                let group = max(1, Int(seen["watermark"] ?? "") ?? 1) * 16
                var start = 0
                while start < bytes.count {
                    let end = min(start + group, bytes.count)
                    _ = bytes[start..<end].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                    start = end
                    usleep(2_000)
                }
            }
            box = seenBox
        }

        private let box: Box
        final class Box: @unchecked Sendable {
            private let lock = NSLock()
            private var value: [String: String] = [:]
            func set(_ v: [String: String]) { lock.withLock { value = v } }
            var get: [String: String] { lock.withLock { value } }
        }

        /// Waits for the writer; returns the buffer attributes it saw when the source opened the node.
        func finish() -> [String: String] {
            worker.join()
            return box.get
        }
    }

    /// Runs `source` with a real stop signal until it ends or `seconds` pass.
    func capture(_ source: IIOSource, seconds: Double = 15) -> (Collector, (any Error)?) {
        let collector = Collector()
        let stop = StopSignal()
        let failure = ErrorBox()
        let worker = Worker {
            do {
                try source.run(deliverAll: { $0.forEach(collector.deliver) }, note: collector.note, stop: stop)
            } catch {
                failure.set(error)
            }
        }
        if !worker.join(seconds: seconds) {
            stop.stop()
            worker.join()
        }
        return (collector, failure.value)
    }

    func infos(_ collector: Collector) -> [String] {
        collector.notes.compactMap { if case .info(let text) = $0 { text } else { nil } }
    }

    @Test("1 kHz: length 2000 then watermark 500 are written before the buffer is enabled; scans arrive in groups of 500")
    func watermarkWritten() throws {
        let root = FakeSysfs()
        let device = try makeDevice(root, watermark: "1")
        let source = try IIOSource(device: device, rate: 1000)
        #expect(source.chosenRate == 1000)
        #expect(source.bufferSizing == IIOBufferSizing(rate: 1000, maxLatency: 0.5))
        let writer = KernelLikeWriter(root: root, id: device.id, bytes: scans(1000))
        let (collector, failure) = capture(source)
        #expect(failure == nil, "\(String(describing: failure))")
        let seen = writer.finish()
        #expect(seen == ["watermark": "500", "length": "2000", "enable": "1"])
        #expect(root.read(device.id, "buffer0/enable") == "0")
        #expect(collector.motion.count == 1000)
        #expect(collector.motion.map { Int($0.1.x) } == Array(0..<1000))
        #expect(collector.lost == 0)
        #expect(infos(collector).contains("buffer watermark 500 scans, length 2000"))
    }

    @Test("a shorter latency (the recorder's flush interval / 2) lowers the watermark")
    func latencyFollowsFlushInterval() throws {
        let root = FakeSysfs()
        let device = try makeDevice(root, watermark: "1")
        var source = try IIOSource(device: device, rate: 200)
        source.maxLatency = 0.1
        let writer = KernelLikeWriter(root: root, id: device.id, bytes: scans(60))
        let (collector, failure) = capture(source)
        #expect(failure == nil)
        #expect(writer.finish()["watermark"] == "20")
        #expect(collector.motion.count == 60)
    }

    @Test("a kernel without buffer/watermark: none is created, the length still is, reads are batched by sleeping, nothing lost")
    func noWatermarkFallsBack() throws {
        let root = FakeSysfs()
        let device = try makeDevice(root, watermark: nil)
        var source = try IIOSource(device: device, rate: 200)
        source.maxLatency = 0.05
        // Old kernels wake the reader for every scan: the writer hands them over one by one.
        let writer = FIFOWriter(
            path: root.node(device.id), chunks: stride(from: 0, to: 300 * 16, by: 16).map { Array(scans(300)[$0..<$0 + 16]) },
            enableFile: root.deviceDirectory(device.id) + "/buffer0/enable", pauseMicroseconds: 200)
        let (collector, failure) = capture(source)
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(writer.finish() == "1")
        #expect(root.read(device.id, "buffer0/watermark") == nil)
        #expect(root.read(device.id, "buffer0/length") == "128")
        #expect(collector.motion.map { Int($0.1.x) } == Array(0..<300))
        #expect(collector.lost == 0)
        #expect(infos(collector).contains("no buffer watermark (kernel before 4.2); reading every 0.05 s instead"))
        #expect(!infos(collector).contains { $0.hasPrefix("buffer watermark ") })
    }

    @Test("a watermark the kernel refuses: said so, the sleeping fallback is used, nothing lost")
    func refusedWatermarkFallsBack() throws {
        let root = FakeSysfs()
        let device = try makeDevice(root, watermark: "1")
        // A directory where the file is: writing it fails, as a refused value would (EINVAL).
        try FileManager.default.removeItem(atPath: root.deviceDirectory(device.id) + "/buffer0/watermark")
        try FileManager.default.createDirectory(
            atPath: root.deviceDirectory(device.id) + "/buffer0/watermark", withIntermediateDirectories: true)
        var source = try IIOSource(device: device, rate: 1000)
        source.maxLatency = 0.05
        let writer = FIFOWriter(
            path: root.node(device.id), chunks: [scans(100)],
            enableFile: root.deviceDirectory(device.id) + "/buffer0/enable")
        let (collector, failure) = capture(source)
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(writer.finish() == "1")
        #expect(collector.motion.count == 100)
        #expect(infos(collector).contains { $0.hasPrefix("buffer watermark not accepted") && $0.hasSuffix("reading every 0.05 s instead") })
    }

    @Test("a source blocked in poll with no data and no timeout returns when the stop signal is given, and disables the buffer")
    func stopWakesABlockedSource() throws {
        let root = FakeSysfs()
        let device = try makeDevice(root, watermark: "1")
        let source = try IIOSource(device: device, rate: 1000)
        let stop = StopSignal()
        #expect(stop.descriptor >= 0)
        let returned = StopFlag()
        let worker = Worker {
            try? source.run(deliverAll: { _ in }, note: { _ in }, stop: stop)
            returned.set()
        }
        // A writer that holds the FIFO open and sends nothing: the source waits in poll.
        let fd = open(root.node(device.id), O_WRONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(!returned.isSet)
        stop.stop()
        #expect(worker.join(seconds: 30))
        #expect(returned.isSet)
        #expect(root.read(device.id, "buffer0/enable") == "0")
    }

    @Test("StopSignal: a wait sees data, a timeout, and the signal, which wins and stays given")
    func stopSignal() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let stop = StopSignal()
        #expect(try stop.wait(for: ends[0], timeout: 0) == .timedOut)
        var byte: UInt8 = 7
        #expect(write(ends[1], &byte, 1) == 1)
        guard case .ready(let revents) = try stop.wait(for: ends[0], timeout: nil) else {
            Issue.record("data not seen")
            return
        }
        #expect(revents & Int16(POLLIN) != 0)
        stop.stop()
        stop.stop()
        #expect(stop.isStopped)
        #expect(try stop.wait(for: ends[0], timeout: nil) == .stopped)
        #expect(try stop.wait(for: -1, timeout: nil) == .stopped)
        #expect(!stop.sleep(until: WallClock.now() + 3_600_000))

        let flag = StopFlag()
        let polling = StopSignal(polling: { flag.isSet })
        #expect(polling.descriptor == -1)
        #expect(!polling.isStopped)
        flag.set()
        #expect(polling.isStopped)
        #expect(try polling.wait(for: ends[0], timeout: nil) == .stopped)
    }
}
