import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

@Suite("IIO discovery and capture on a fake sysfs tree")
struct IIOSourceTests {
    /// Runs a source until it ends (FIFO closed) or `seconds` pass.
    func capture(_ source: IIOSource, seconds: Double = 15) throws -> (Collector, (any Error)?) {
        let collector = Collector()
        let stop = StopFlag()
        let failure = ErrorBox()
        let worker = Worker {
            do {
                try source.run(deliver: collector.deliver, note: collector.note, shouldStop: { stop.isSet })
            } catch {
                failure.set(error)
            }
        }
        if !worker.join(seconds: seconds) {
            stop.set()
            worker.join()
        }
        return (collector, failure.value)
    }

    /// Runs a buffered `source` on device `id` of `root` while a writer feeds `chunks` into its
    /// node once `<buffer>/enable` is 1, as the kernel would; expects the source to end without
    /// an error and to have enabled the buffer.
    func stream(
        _ source: IIOSource, _ chunks: [[UInt8]], root: FakeSysfs, id: String, buffer: String = "buffer0",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Collector {
        let writer = FIFOWriter(path: root.node(id), chunks: chunks, enableFile: root.deviceDirectory(id) + "/\(buffer)/enable")
        let (collector, failure) = try capture(source)
        #expect(failure == nil, "\(String(describing: failure))", sourceLocation: sourceLocation)
        #expect(writer.finish() == "1", sourceLocation: sourceLocation)
        return collector
    }

    @Test("discovery: by channel files, several devices of one chip, _input over _raw, rates")
    func discovery() throws {
        let root = FakeSysfs()
        root.write("iio:device0", ["name": "lsm6dsx", "label": "accel-base", "in_accel_x_raw": "1", "in_accel_y_raw": "2",
            "in_accel_z_raw": "3", "in_accel_scale": "0.5", "sampling_frequency_available": "13 26 52 104 208",
            "sampling_frequency": "104.000000"])
        root.write("iio:device1", ["name": "lsm6dsx", "in_anglvel_x_raw": "1", "in_anglvel_y_raw": "1", "in_anglvel_z_raw": "1"])
        root.write("iio:device2", ["name": "bmp280", "in_pressure_input": "101.325", "in_pressure_raw": "7", "in_temp_input": "21000"])
        root.write("iio:device3", ["name": "lsm6dsx", "in_temp_raw": "12"])
        root.write("trigger0", ["name": "lsm6dsx-dev0"])
        let devices = IIODiscovery.devices(root: root.path)
        #expect(devices.map(\.id) == ["iio:device0", "iio:device1", "iio:device2", "iio:device3"])
        #expect(devices.filter(\.isUseful).map(\.id) == ["iio:device0", "iio:device1", "iio:device2"])
        #expect(devices[0].label == "accel-base")
        #expect(devices[0].capabilities.motionSensors == [.accelerometer])
        #expect(devices[1].capabilities.motionSensors == [.gyroscope])
        #expect(devices[0].matchingTrigger == "lsm6dsx-dev0")
        #expect(devices[1].matchingTrigger == nil)
        #expect(devices[0].currentRate == 104)
        let source = try IIOSource(device: devices[0], rate: 100)
        #expect(source.chosenRate == 104)
        // No buffer: polled at the rate asked, the device set to the lowest rate at or above it.
        #expect(!source.buffered && source.pollingRate == 100 && source.pollingFrequency == 104)
        #expect(source.summary.contains("polled, rate 100 Hz (asked 100), sampling_frequency 104 Hz"), "\(source.summary)")

        // Polled pressure prefers _input (101.325 kPa) over _raw.
        let barometer = try IIOSource(device: devices[2], rate: 50)
        #expect(!barometer.buffered)
        let stop = StopFlag()
        let collector = Collector()
        let worker = Worker {
            try? barometer.run(deliver: { sample in
                collector.deliver(sample)
                if collector.samples.count >= 3 { stop.set() }
            }, note: collector.note, shouldStop: { stop.isSet })
        }
        #expect(worker.join())
        #expect(collector.pressures.count >= 3)
        #expect(collector.pressures.allSatisfy { abs($0.hectopascals - 1013.25) < 1e-9 })
    }

    @Test("bufferY, little endian: shifts, a repeat count, per-axis before shared scale, offset, kernel timestamps; scans split across writes; enable 1 then 0")
    func bufferedLittleEndian() throws {
        let root = FakeSysfs()
        let id = "iio:device0"
        root.write(
            id,
            [
                "name": "fakeaccel", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "0",
                "in_accel_scale": "0.5", "in_accel_x_scale": "2", "in_accel_offset": "1",
                "current_timestamp_clock": "realtime",
                "sampling_frequency_available": "50 100 200", "sampling_frequency": "50",
                "buffer0/enable": "0", "buffer0/length": "0", "trigger/current_trigger": "",
            ],
            FakeSysfs.scanElement("accel_x", index: 0, type: "le:s16/16X2>>0"),
            FakeSysfs.scanElement("accel_y", index: 1, type: "le:s12/16>>4"),
            FakeSysfs.scanElement("accel_z", index: 2, type: "le:u8/8>>0"),
            FakeSysfs.scanElement("temp", index: 3, type: "le:s16/16>>0", enabled: true),
            FakeSysfs.scanElement("timestamp", index: 5, type: "le:s64/64>>0"))
        root.write("trigger3", ["name": "fakeaccel-dev0"])
        root.makeNode(id)
        // x: s16 ×2 at 0 (first value used), y: s12>>4 at 4, z: u8 at 6, timestamp at 8; 16 bytes.
        var scans: [UInt8] = []
        let base: Int64 = 1_781_424_000_000_000_000
        for i in 0..<10 {
            var scan = ScanBytes()
            scan.le(Int16(i)); scan.le(Int16(999))
            scan.le(UInt16(bitPattern: Int16(-3 * 16)) | 0x000F)  // -3 in the top 12 bits, noise below
            scan.bytes.append(200)
            scan.pad(to: 8)
            scan.le(base + Int64(i) * 5_000_000)
            #expect(scan.bytes.count == 16)
            scans += scan.bytes
        }
        // Split across writes at awkward places.
        let chunks = [Array(scans[0..<5]), Array(scans[5..<37]), Array(scans[37..<100]), Array(scans[100...])]
        let device = try #require(IIODiscovery.device(id: id, root: root.path))
        #expect(device.canStream)
        let source = try IIOSource(device: device, rate: 190)
        #expect(source.buffered)
        let collector = try stream(source, chunks, root: root, id: id)
        #expect(root.read(id, "buffer0/enable") == "0")
        #expect(root.read(id, "buffer0/in_temp_en") == "0")
        #expect(root.read(id, "buffer0/in_timestamp_en") == "1")
        #expect(root.read(id, "sampling_frequency") == "200")
        #expect(root.read(id, "trigger/current_trigger") == "NULL")
        let motion = collector.motion
        #expect(motion.count == 10)
        #expect(collector.lost == 0)
        for (i, (sensor, sample)) in motion.enumerated() {
            #expect(sensor == .accelerometer)
            #expect(sample.timestamp == 1_781_424_000_000 + Int64(i) * 5)
            #expect(sample.x == (Double(i) + 1) * 2)
            #expect(sample.y == (-3 + 1) * 0.5)
            #expect(sample.z == (200 + 1) * 0.5)
        }
    }

    @Test("legacy scan_elements + buffer/, big endian, mixed element sizes, mount matrix, no timestamp channel")
    func bufferedLegacyBigEndian() throws {
        let root = FakeSysfs()
        let id = "iio:device4"
        root.write(
            id,
            [
                "name": "fakeimu", "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "0",
                "in_anglvel_scale": "0.001", "in_anglvel_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, -1",
                "in_pressure_raw": "0", "in_pressure_scale": "0.0001",
                "buffer/enable": "0", "buffer/length": "0", "buffer/hwfifo_enabled": "1",
            ],
            FakeSysfs.axes("anglvel", type: "be:s16/16>>0", sharedType: true, enabled: true, in: "scan_elements"),
            FakeSysfs.scanElement("pressure", index: 7, type: "be:u32/32>>0", in: "scan_elements"))
        root.makeNode(id)
        // gyro 3 × s16 at 0, 2, 4; pressure u32 aligned to 8; scan 12 bytes.
        var scans: [UInt8] = []
        for i in 0..<6 {
            var scan = ScanBytes()
            scan.be(Int16(100)); scan.be(Int16(-200)); scan.be(Int16(300 + i))
            scan.pad(to: 4)
            scan.be(UInt32(1_013_250))
            #expect(scan.bytes.count == 12)
            scans += scan.bytes
        }
        let chunks = stride(from: 0, to: scans.count, by: 7).map { Array(scans[$0..<min($0 + 7, scans.count)]) }
        let device = try #require(IIODiscovery.device(id: id, root: root.path))
        #expect(device.hasHardwareFIFO)
        let source = try IIOSource(device: device)
        let collector = try stream(source, chunks, root: root, id: id, buffer: "buffer")
        #expect(root.read(id, "buffer/enable") == "0")
        #expect(root.read(id, "scan_elements/in_pressure_en") == "1")
        #expect(collector.motion.count == 6)
        #expect(collector.pressures.count == 6)
        if let (sensor, first) = collector.motion.first {
            #expect(sensor == .gyroscope)
            // (x, y, z) = (0.1, -0.2, 0.3) rotated by the mount matrix → (y, x, -z).
            #expect(abs(first.x - -0.2) < 1e-12)
            #expect(abs(first.y - 0.1) < 1e-12)
            #expect(abs(first.z - -0.3) < 1e-12)
        }
        #expect(collector.pressures.allSatisfy { abs($0.hectopascals - 1013.25) < 1e-9 })
    }

    @Test("kernel timestamps on the monotonic clock are moved to Unix time; a read ending mid-scan counts one loss")
    func monotonicTimestamps() throws {
        let root = FakeSysfs()
        let id = "iio:device2"
        root.write(
            id,
            [
                "name": "fakebaro", "in_pressure_raw": "0", "in_pressure_scale": "0.001",
                "current_timestamp_clock": "monotonic", "buffer0/enable": "0",
            ],
            FakeSysfs.scanElement("pressure", index: 0, type: "le:u24/32>>8"),
            FakeSysfs.scanElement("timestamp", index: 1, type: "le:s64/64>>0"))
        root.makeNode(id)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let monotonic = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        var scans: [UInt8] = []
        for i in 0..<4 {
            var scan = ScanBytes()
            scan.le(UInt32(101_325) << 8 | 0x7F)  // 101.325 kPa in the top 24 bits
            scan.pad(to: 8)
            scan.le(monotonic + Int64(i) * 10_000_000)
            scans += scan.bytes
        }
        scans += [1, 2, 3]  // a partial scan, then the writer closes
        let device = try #require(IIODiscovery.device(id: id, root: root.path))
        let source = try IIOSource(device: device)
        let wall = WallClock.now()
        let collector = try stream(source, [scans], root: root, id: id)
        let pressures = collector.pressures
        #expect(pressures.count == 4)
        #expect(pressures.allSatisfy { abs($0.hectopascals - 1013.25) < 1e-9 })
        if pressures.count == 4 {
            #expect(abs(pressures[0].timestamp - wall) < 1_000)
            #expect(pressures[3].timestamp - pressures[0].timestamp == 30)
        }
        #expect(collector.lost == 1)
    }

    /// Issue 42: an MMA8452 with its interrupt pin not wired, on Debian's kernel (no software
    /// trigger), failed with "the device needs a trigger and none was found" although its
    /// `_raw` files read fine; it is polled at the rate asked for, which it then reports.
    @Test("enable refused without a trigger: the device is polled at --rate, with scale, and says the rate and jitter it achieves")
    func triggerlessFallsBackToPolling() throws {
        let root = FakeSysfs()
        let id = "iio:device0"
        let device = try IIOPollingRateTests.triggerless(root, ["name": "fakeaccel"])
        let run = try IIOPollingRateTests().poll(device, rate: 50)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(run.infos.contains { $0.hasPrefix("buffer refused without a trigger (") }, "\(run.infos)")
        let report = try #require(run.report)
        #expect(report.contains(" Hz (asked 50), jitter ") && report.contains(" ms late"), "\(report)")
        // About 15 reads in 0.3 s at 50 Hz; a loaded machine may manage fewer.
        #expect(run.samples >= 5)
        let first = try #require(run.first)
        #expect(first.0 == .accelerometer)
        #expect(abs(first.1.x - 0.2) < 1e-9 && abs(first.1.y + 0.4) < 1e-9 && abs(first.1.z - 8) < 1e-9)

        // With a matching data-ready trigger it is set before enabling and cleared after the failure.
        root.write("trigger0", ["name": "fakeaccel-dev0"])
        let triggered = try #require(IIODiscovery.device(id: id, root: root.path))
        #expect(triggered.triggerSummary == "available: fakeaccel-dev0")
        let (_, second) = try capture(try IIOSource(device: triggered))
        #expect(second != nil)
        #expect(!"\(second.map { "\($0)" } ?? "")".contains("needs a trigger"))
        #expect(root.read(id, "trigger/current_trigger") == "NULL")
    }

    @Test("a device that vanishes while polled fails with a clear message")
    func vanishingDevice() throws {
        let root = FakeSysfs()
        root.write("iio:device0", ["name": "fakemag", "in_magn_x_raw": "1", "in_magn_y_raw": "2", "in_magn_z_raw": "3",
            "in_magn_scale": "0.01"])
        let device = try #require(IIODiscovery.device(id: "iio:device0", root: root.path))
        let source = try IIOSource(device: device, rate: 100)
        let collector = Collector()
        let failure = ErrorBox()
        let worker = Worker {
            do {
                try source.run(deliver: collector.deliver, note: collector.note, shouldStop: { false })
            } catch {
                failure.set(error)
            }
        }
        while collector.motion.count < 3 { usleep(10_000) }
        try FileManager.default.removeItem(atPath: root.deviceDirectory("iio:device0"))
        #expect(worker.join())
        #expect("\(failure.value.map { "\($0)" } ?? "")".contains("vanished"))
        #expect(collector.motion.first?.1 == MotionSample(timestamp: collector.motion[0].1.timestamp, x: 1, y: 2, z: 3))
    }

    @Test("no permission on the device node: a clear message naming the node")
    func permission() throws {
        let root = FakeSysfs()
        let id = "iio:device0"
        root.write(
            id, ["name": "fakeaccel", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "0", "buffer0/enable": "0"],
            FakeSysfs.axes("accel", type: "le:s16/16>>0"))
        // A directory where the node should be: open() for reading fails (EISDIR) as a stand-in
        // for EACCES, which root (the CI user) never gets.
        try root.makeUnopenableNode(id)
        let device = try #require(IIODiscovery.device(id: id, root: root.path))
        let source = try IIOSource(device: device)
        let (_, failure) = try capture(source)
        let message = failure.map { "\($0)" } ?? ""
        #expect(message.contains(root.node(id)))
        #expect(root.read(id, "buffer0/enable") == "0")
    }
}

final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    var value: (any Error)? { lock.withLock { stored } }
    func set(_ error: any Error) { lock.withLock { stored = error } }
}
