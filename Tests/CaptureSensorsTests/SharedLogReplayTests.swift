import CaptureCore
import CaptureGNSS
import CaptureSensors
import Foundation
import Glibc
import Testing

import CaptureTestSupport

/// Every shared receiver log, as it is and with its line ends rewritten, replayed through
/// `TraceInput` (what `capture replay` reads) and compared with gpsd's decoding in its `.chk`.
@Suite("Shared receiver logs replay as they are, LF or CRLF")
struct SharedLogReplayTests {
    enum LineEnding: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Every line end made `\n`.
        case lf
        /// Every line end made `\r\n` (as NMEA 0183 has it).
        case crlf
        var testDescription: String { rawValue.uppercased() }
    }

    /// The logs in `shared/data/gpsd` (a test below checks that none is missing here).
    static let logs = [
        "eXplorist210.log", "garmin15x.log", "nmea-fuzzy-cases.log", "quectel-eg25-g.log", "u-blox-m8t-time.log",
        "ublox-8.log", "ublox-neo-m8n.log", "ublox-neo-m8t.log", "ublox-neo-m8u-hnr.log", "ublox-neo-m8u.log",
        "ublox-neo-m9n-nmea.log", "ublox-zed-f9t-rtcm3.log",
    ]

    /// A log on which capture's fix count is not gpsd's (±2 or 2 %), for a reason shown in the
    /// log itself: capture's count, and what the test checks instead of the tolerance.
    struct Difference: Sendable {
        /// capture's fixes (distinct times).
        let fixes: Int
        /// Why capture differs from gpsd here.
        let why: String
        /// gpsd's times that are not capture's lie at most this far (ms) from a capture fix with
        /// gpsd's position there.
        var nearby: Int64 = 0
        /// capture's fixes at times gpsd reports none for (Unix ms); each holds the position
        /// gpsd reports at its nearest time.
        var extra: Set<Int64> = []
    }

    static let differences: [String: Difference] = [
        "eXplorist210.log": Difference(
            fixes: 4,
            why: """
                4 epochs (20:06:19.30 … 20:06:22.31 by GGA and RMC); the receiver stamps GLL with a \
                different, three-digit fraction (200620.303 beside 200620.30; the log's header calls \
                them spurious start-of-cycle events), and gpsd reports each of those as a fix of its \
                own: 7 times, the 3 extra ones within 10 ms of an epoch and at its position
                """,
            nearby: 10),
        "ublox-zed-f9t-rtcm3.log": Difference(
            fixes: 26,
            why: """
                26 NAV-PVT epochs, each a time-only fix (fixType 5) with gnssFixOK and the same \
                surveyed position; gpsd reports no TPV for the log's first epoch (08:13:29, as in \
                u-blox-m8t-time.log) nor for the epoch after each one that carries NAV-SAT and \
                NAV-SBAS (08:13:30, :40, :50): 22
                """,
            extra: [1_571_300_009_000, 1_571_300_010_000, 1_571_300_020_000, 1_571_300_030_000]),
    ]

    /// The log's bytes with every line end in its text parts (outside UBX frames) made `ending`.
    /// UBX frames are copied unchanged: their payloads are binary. RTCM 3 frames, which the
    /// splitter skips, are left out.
    static func rewrite(_ bytes: [UInt8], to ending: LineEnding) -> [UInt8] {
        var splitter = UBXFrameSplitter()
        var output: [UInt8] = []
        for piece in splitter.push(bytes) + splitter.finish() {
            switch piece {
            case .frame(let frame):
                output += frame.bytes
            case .text(let text):
                var index = 0
                while index < text.count {
                    let byte = text[index]
                    if byte == 0x0D, index + 1 < text.count, text[index + 1] == 0x0A {
                        index += 1
                        continue
                    }
                    if byte == 0x0A {
                        output += ending == .crlf ? [0x0D, 0x0A] : [0x0A]
                    } else {
                        output.append(byte)
                    }
                    index += 1
                }
            }
        }
        return output
    }

    /// gpsd's fixes: distinct TPV times with mode 2 or 3, and their positions (Unix ms).
    static func gpsdFixes(_ log: String) throws -> [Int64: (lat: Double, lon: Double)] {
        try SharedData.oracle(log)
    }

    /// gpsd's IMU reports of ESF-RAW: distinct time tags with accelerometer values, and with
    /// gyroscope values, each with its first values (gpsd reports some more than once).
    static func gpsdRawIMU(_ log: String) throws -> (accel: [Int: [Double]], gyro: [Int: [Double]]) {
        var accel: [Int: [Double]] = [:]
        var gyro: [Int: [Double]] = [:]
        let text = try String(contentsOfFile: SharedData.path(log + ".chk"), encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["class"] as? String == "IMU", object["msg"] as? String == "UBX-ESF-RAW",
                let tag = object["timeTag"] as? Int
            else { continue }
            if let x = object["acc_x"] as? Double, let y = object["acc_y"] as? Double, let z = object["acc_z"] as? Double,
                accel[tag] == nil
            {
                accel[tag] = [x, y, z]
            }
            if let x = object["gyro_x"] as? Double, let y = object["gyro_y"] as? Double, let z = object["gyro_z"] as? Double,
                gyro[tag] == nil
            {
                gyro[tag] = [x, y, z]
            }
        }
        return (accel, gyro)
    }

    @Test("the table names every log in shared/data/gpsd", .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func tableIsComplete() {
        #expect(Set(SharedData.logs) == Set(Self.logs))
    }

    @Test(
        "replays with gpsd's fix count (±2 or 2 %) and positions", .enabled(if: SharedData.isAvailable, SharedData.absentReason),
        arguments: logs, LineEnding.allCases)
    func replay(log: String, ending: LineEnding) throws {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: SharedData.path(log))))
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("capture-\(ending.rawValue)-\(UUID().uuidString)-\(log)").path
        try Data(Self.rewrite(original, to: ending)).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }

        let input = try TraceInput(path: path)
        #expect(input.format == .nmea, "\(log) (\(ending))")
        var fixes: [Fix] = []
        var motion: [MotionSensor: [MotionSample]] = [:]
        try input.forEachRecord { record, _ in
            switch record {
            case .sample(.fix(let fix)): fixes.append(fix)
            case .sample(.motion(let sensor, let sample)): motion[sensor, default: []].append(sample)
            default: break
            }
        }
        let oracle = try Self.gpsdFixes(log)
        let tolerance = max(2, oracle.count * 2 / 100)
        let distinct = Set(fixes.map(\.timestamp)).count
        #expect(distinct == fixes.count, "\(log): one fix per time")
        var matched = 0
        for fix in fixes {
            guard let expected = oracle[fix.timestamp] else { continue }
            matched += 1
            #expect(
                abs(fix.latitude - expected.lat) < 1e-6 && abs(fix.longitude - expected.lon) < 1e-6,
                "\(log) at \(fix.timestamp): \(fix.latitude), \(fix.longitude) vs gpsd \(expected.lat), \(expected.lon)")
        }
        if let difference = Self.differences[log] {
            // Not gpsd's count, for the reason given: exactly capture's count, every fix gpsd has
            // accounted for, and capture's others where the reason says.
            #expect(distinct == difference.fixes, "\(log) (\(ending)): \(distinct) fixes; \(difference.why)")
            for (time, expected) in oracle where !fixes.contains(where: { $0.timestamp == time }) {
                let near = fixes.filter { abs($0.timestamp - time) <= difference.nearby }
                #expect(
                    near.contains { abs($0.latitude - expected.lat) < 1e-6 && abs($0.longitude - expected.lon) < 1e-6 },
                    "\(log): gpsd's fix at \(time) has no capture fix within \(difference.nearby) ms at its position")
            }
            for fix in fixes where oracle[fix.timestamp] == nil {
                #expect(difference.extra.contains(fix.timestamp), "\(log): a fix at \(fix.timestamp) that gpsd does not report")
                guard let nearest = oracle.keys.min(by: { abs($0 - fix.timestamp) < abs($1 - fix.timestamp) }) else { continue }
                let expected = oracle[nearest]!
                #expect(abs(fix.latitude - expected.lat) < 1e-6 && abs(fix.longitude - expected.lon) < 1e-6, "\(log) at \(fix.timestamp)")
            }
        } else {
            #expect(abs(distinct - oracle.count) <= tolerance, "\(log) (\(ending)): \(distinct) fixes, gpsd \(oracle.count)")
            #expect(abs(matched - oracle.count) <= tolerance, "\(log): \(matched) of gpsd's \(oracle.count) fix times matched")
        }

        // The NEO-M8U's own IMU: one sample per ESF-RAW time tag, as gpsd decodes them.
        let imu = try Self.gpsdRawIMU(log)
        let accel = motion[.accelerometer] ?? []
        let gyro = motion[.gyroscope] ?? []
        #expect(accel.count == imu.accel.count, "\(log): accelerometer samples")
        #expect(gyro.count == imu.gyro.count, "\(log): gyroscope samples")
        if let first = imu.accel.keys.min(), let sample = accel.first {
            let values = imu.accel[first]!
            #expect(abs(sample.x - values[0]) < 1e-4 && abs(sample.y - values[1]) < 1e-4 && abs(sample.z - values[2]) < 1e-4)
        }
        if let first = imu.gyro.keys.min(), let sample = gyro.first {
            let values = imu.gyro[first]!.map { $0 * .pi / 180 }
            #expect(abs(sample.x - values[0]) < 1e-5 && abs(sample.y - values[1]) < 1e-5 && abs(sample.z - values[2]) < 1e-5)
        }
        // Motion samples lie within a second of the fixes (they are placed on GNSS time).
        if let firstFix = fixes.map(\.timestamp).min(), let lastFix = fixes.map(\.timestamp).max() {
            for sample in accel + gyro {
                #expect(sample.timestamp > firstFix - 2_000 && sample.timestamp < lastFix + 2_000, "\(log): sample at \(sample.timestamp)")
            }
            let times = accel.map(\.timestamp)
            #expect(times == times.sorted(), "\(log): accelerometer samples in time order")
        }
        print("shared log \(log) \(ending): \(distinct) fixes (gpsd \(oracle.count)), \(accel.count) accelerometer / \(gyro.count) gyroscope samples (gpsd \(imu.accel.count) / \(imu.gyro.count))")
    }
}

/// The `nmea:` live source reading u-blox binary from a pty, as from a receiver's serial port.
@Suite("The nmea: source reads UBX from a serial device")
struct UBXLiveSourceTests {
    /// Writes shared log `log` to a pty in uneven pieces, read by an `nmea:` source on its own
    /// descriptor in raw mode, until `done` holds for what it delivered (10 s at most), then stops
    /// the source. Whether the source ended cleanly is `joined`.
    static func overPty(_ log: String, until done: (Collector) -> Bool) throws -> (collector: Collector, joined: Bool) {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: SharedData.path(log))))
        let terminal = try PseudoTerminal()
        let path = terminal.path
        let collector = Collector()
        let stop = StopFlag()
        let worker = Worker {
            try? NMEASource(path: path).run(deliver: collector.deliver, note: collector.note, shouldStop: { stop.isSet })
        }
        usleep(200_000)
        terminal.closeSlave()  // the source has its own descriptor, in raw mode, now
        var start = 0
        var step = 1
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            let chunk = Array(bytes[start..<end])
            _ = terminal.write(chunk)
            start = end
            step = step % 997 + 61
            usleep(1_000)
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !done(collector) { usleep(50_000) }
        stop.set()
        return (collector, worker.join())
    }

    @Test(
        "the NEO-M8U log through a pty in raw mode: fixes and IMU samples as in a replay",
        .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func ubxOverPty() throws {
        // The last epoch closes with its NAV-EOE; wait until its fix and the last IMU samples are in.
        let (collector, joined) = try Self.overPty("ublox-neo-m8u.log") { $0.fixes.count >= 3 && $0.motion.count >= 580 }
        #expect(joined)
        #expect(collector.fixes.count == 3)
        #expect(collector.motion.filter { $0.0 == .accelerometer }.count == 290)
        #expect(collector.motion.filter { $0.0 == .gyroscope }.count == 290)
        // The log begins with gpsd's VERSION, DEVICES and WATCH reports (it was taken with
        // `gpspipe -R`): three lines that are not NMEA. Nothing else is lost.
        #expect(collector.lost == 3)
    }

    @Test(
        "the ZED-F9T log (RTCM 3 and UBX) through a pty: its fixes, the RTCM 3 frames skipped, not lost",
        .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func rtcm3OverPty() throws {
        // Its 26 epochs have no NAV-EOE: the last closes on its last message kind, learnt earlier.
        let (collector, joined) = try Self.overPty("ublox-zed-f9t-rtcm3.log") { $0.fixes.count >= 26 }
        #expect(joined)
        #expect(collector.fixes.count == 26)
        // 182 RTCM 3 frames and 6 UBX messages not decoded (3 NAV-SAT, 3 NAV-SBAS) are skipped.
        #expect(collector.skipped == 188)
        // Nothing is lost: the RTCM 3 frame cut off at the end of the log waits for its rest.
        #expect(collector.lost == 0)
    }
}
