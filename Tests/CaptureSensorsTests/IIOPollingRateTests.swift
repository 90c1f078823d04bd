import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Issue 42: a polled IIO device is set to convert at least as often as it is read. Polling at
/// a rate above the device's `sampling_frequency` reads the same conversion again and again; the
/// source sets the lowest available rate at or above the poll rate (else the highest), never
/// fails for a rate it cannot set, and says what the device runs at.
@Suite("IIO polling sets the device's sampling_frequency")
struct IIOPollingRateTests {
    /// A trigger-less accelerometer as an MMA8452 on i2c-stub shows itself: a buffer whose
    /// `enable` the kernel refuses (a directory here: writing it fails), no trigger, raw values
    /// and a scale; `attributes` besides.
    static func triggerless(_ root: FakeSysfs, _ attributes: [String: String]) throws -> IIODevice {
        let id = "iio:device0"
        root.write(
            id,
            ["name": "mma8452", "in_accel_x_raw": "100", "in_accel_y_raw": "-200", "in_accel_z_raw": "4000",
                "in_accel_scale": "0.002", "trigger/current_trigger": ""].merging(attributes) { $1 },
            FakeSysfs.axes("accel", type: "le:s16/16>>0"))
        try FileManager.default.createDirectory(
            atPath: root.deviceDirectory(id) + "/buffer0/enable", withIntermediateDirectories: true)
        root.makeNode(id)
        let device = try #require(IIODiscovery.device(id: id, root: root.path))
        #expect(device.triggerSummary == "none found (trigger-less attempt, else polled)")
        return device
    }

    /// A magnetometer with no buffer (always polled), its values and `attributes`.
    static func plain(_ root: FakeSysfs, _ attributes: [String: String]) throws -> IIODevice {
        root.write(
            "iio:device1",
            ["name": "fakemag", "in_magn_x_raw": "1", "in_magn_y_raw": "2", "in_magn_z_raw": "3", "in_magn_scale": "0.5"]
                .merging(attributes) { $1 })
        let device = try #require(IIODiscovery.device(id: "iio:device1", root: root.path))
        #expect(!device.canStream)
        return device
    }

    /// What a polled run said and delivered.
    struct Run {
        var infos: [String]
        var samples: Int
        var failure: (any Error)?
        /// The first motion sample delivered.
        var first: (MotionSensor, MotionSample)?
        /// The first rate report (`polled at …`).
        var report: String? { infos.first { $0.hasPrefix("polled at ") } }
    }

    /// Runs `device` at `rate` until its first rate report (after 0.3 s) or a failure, then stops it.
    func poll(_ device: IIODevice, rate: Double?) throws -> Run {
        var source = try IIOSource(device: device, rate: rate)
        source.rateReportAfter = 0.3
        let collector = Collector()
        let stop = StopFlag()
        let failure = ErrorBox()
        let worker = Worker { [source] in
            do {
                try source.run(deliver: collector.deliver, note: collector.note, shouldStop: { stop.isSet })
            } catch {
                failure.set(error)
            }
        }
        func infos() -> [String] { collector.notes.compactMap { if case .info(let text) = $0 { text } else { nil } } }
        for _ in 0..<1000 where failure.value == nil && !infos().contains(where: { $0.hasPrefix("polled at ") }) {
            usleep(10_000)
        }
        stop.set()
        #expect(worker.join())
        return Run(infos: infos(), samples: collector.motion.count, failure: failure.value, first: collector.motion.first)
    }

    @Test("--rate 30 on a trigger-less device: polled at 30 Hz, set to 50 Hz (the lowest at or above 30), not to the nearest 25")
    func rateAboveTheNearest() throws {
        let root = FakeSysfs()
        let device = try Self.triggerless(root, ["sampling_frequency_available": "1 10 25 50 100 200", "sampling_frequency": "1"])
        let run = try poll(device, rate: 30)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(root.read("iio:device0", "sampling_frequency") == "50")
        #expect(run.infos.contains { $0.hasPrefix("buffer refused without a trigger") }, "\(run.infos)")
        #expect(run.infos.contains("sampling_frequency set to 50 Hz for polling at 30 Hz"), "\(run.infos)")
        let report = try #require(run.report, "\(run.infos)")
        #expect(report.hasPrefix("polled at ") && report.contains(" Hz (asked 30, sampling_frequency 50 Hz), jitter "), "\(report)")
        #expect(run.samples >= 1)
    }

    @Test("no --rate: a device whose rate reads as none is polled at 10 Hz and set to 12.5 Hz (the lowest at or above 10), not left at 0")
    func noRateAndNoCurrentRate() throws {
        let root = FakeSysfs()
        let device = try Self.triggerless(root, ["sampling_frequency_available": "1.56 6.25 12.5 50 100", "sampling_frequency": "0"])
        #expect(device.currentRate == nil)
        let run = try poll(device, rate: nil)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(root.read("iio:device0", "sampling_frequency") == "12.5")
        #expect(run.infos.contains("sampling_frequency set to 12.5 Hz for polling at 10 Hz"), "\(run.infos)")
        #expect(run.report?.contains("(asked 10, sampling_frequency 12.5 Hz)") == true, "\(run.infos)")
    }

    @Test("no --rate: a device at a rate it reads is polled at that rate and left there, which the report says")
    func noRateKeepsTheDevicesRate() throws {
        let root = FakeSysfs()
        let device = try Self.plain(root, ["sampling_frequency_available": "1 10 25 50 100", "sampling_frequency": "25.000000"])
        let run = try poll(device, rate: nil)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(root.read("iio:device1", "sampling_frequency") == "25.000000")  // not written
        #expect(run.infos.contains("sampling_frequency already 25 Hz for polling at 25 Hz"), "\(run.infos)")
        #expect(run.report?.contains("(asked 25, sampling_frequency 25 Hz)") == true, "\(run.infos)")
    }

    @Test("no sampling_frequency_available: the poll rate is written as it is, and the note says the device lists none")
    func noAvailableRates() throws {
        let root = FakeSysfs()
        let device = try Self.plain(root, ["sampling_frequency": "5"])
        let run = try poll(device, rate: 20)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(root.read("iio:device1", "sampling_frequency") == "20")
        #expect(
            run.infos.contains("sampling_frequency set to 20 Hz for polling at 20 Hz (the device lists no sampling_frequency_available)"),
            "\(run.infos)")
        #expect(run.report?.contains("(asked 20, sampling_frequency 20 Hz)") == true, "\(run.infos)")
        #expect(run.samples >= 1)
    }

    @Test("no sampling_frequency at all: polled, and the note says there was nothing to set")
    func noSamplingFrequency() throws {
        let root = FakeSysfs()
        let device = try Self.plain(root, [:])
        let run = try poll(device, rate: 20)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(run.infos.contains("no sampling_frequency to set: polling at 20 Hz whatever the device converts at"), "\(run.infos)")
        #expect(run.report?.contains("(asked 20), jitter ") == true, "\(run.infos)")
        #expect(run.samples >= 1)
    }

    /// `/proc/sys/kernel/cap_last_cap` reads as a number and cannot be written by anyone here.
    static let readOnlySysctl = access("/proc/sys/kernel/cap_last_cap", R_OK) == 0 && access("/proc/sys/kernel/cap_last_cap", W_OK) != 0

    @Test(
        "a read-only sampling_frequency below the poll rate: still polled, and the notes say the rate stayed and values repeat",
        .enabled(if: IIOPollingRateTests.readOnlySysctl, "/proc/sys/kernel/cap_last_cap is missing or writable here"))
    func readOnlyAttribute() throws {
        let root = FakeSysfs()
        let id = "iio:device0"
        root.write(id, ["sampling_frequency": "0"])
        let current = try #require(root.makeReadOnly(id, "sampling_frequency"))
        let format = IIOSource.format
        // The device runs at `current` Hz and lists a quarter, half, it and double. --rate 1.25 ×
        // current: the nearest is `current` (what buffered capture would set; it is set already),
        // polling wants double.
        let device = try Self.triggerless(
            root, ["sampling_frequency_available": [current / 4, current / 2, current, current * 2].map(format).joined(separator: " ")])
        #expect(device.currentRate == current)
        let asked = current * 1.25
        let run = try poll(device, rate: asked)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(root.read(id, "sampling_frequency") == format(current))
        let refused = try #require(run.infos.first { $0.hasPrefix("sampling_frequency not set to \(format(current * 2)) Hz") }, "\(run.infos)")
        #expect(refused == "sampling_frequency not set to \(format(current * 2)) Hz for polling at \(format(asked)) Hz "
            + "(Permission denied); the device runs at \(format(current)) Hz, slower than it is polled: values repeat")
        #expect(run.report?.contains("(asked \(format(asked)), sampling_frequency \(format(current)) Hz: values repeat)") == true, "\(run.infos)")
        #expect(run.samples >= 1)
    }

    @Test("a sampling_frequency the device will not take (the write fails): still polled at --rate, and the note says so")
    func unwritableAttribute() throws {
        let root = FakeSysfs()
        let device = try Self.plain(root, ["sampling_frequency_available": "10 20 40"])
        try root.makeUnwritable("iio:device1", "sampling_frequency")
        let unreadable = try #require(IIODiscovery.device(id: device.id, root: root.path))
        #expect(unreadable.currentRate == nil)
        let run = try poll(unreadable, rate: 15)
        #expect(run.failure == nil, "\(String(describing: run.failure))")
        #expect(
            run.infos.contains("sampling_frequency not set to 20 Hz for polling at 15 Hz (Is a directory); the device runs at a rate it does not say"),
            "\(run.infos)")
        #expect(run.report?.contains("(asked 15), jitter ") == true, "\(run.infos)")
        #expect(run.samples >= 1)
    }
}
