import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

@Suite("GNSS sources: direct NMEA over a pty, gpsd client")
struct GNSSSourceTests {
    static let sentences = [
        "$GPRMC,120000.00,A,5103.0240,N,01344.2380,E,10.0,90.0,140626,,,A*",
        "$GPGGA,120000.00,5103.0240,N,01344.2380,E,1,08,0.9,112.0,M,46.0,M,,*",
        "$GPRMC,120001.00,A,5103.0250,N,01344.2400,E,10.0,90.0,140626,,,A*",
        "$GPGGA,120001.00,5103.0250,N,01344.2400,E,1,08,0.9,112.0,M,46.0,M,,*",
        "$GPRMC,120002.00,A,5103.0260,N,01344.2420,E,10.0,90.0,140626,,,A*",
        "$GPGGA,120002.00,5103.0260,N,01344.2420,E,1,08,0.9,112.0,M,46.0,M,,*",
    ].map(withChecksum)

    static func withChecksum(_ body: String) -> String {
        let payload = body.dropFirst().dropLast()
        let sum = payload.utf8.reduce(UInt8(0), ^)
        return body + String(format: "%02X", sum)
    }

    @Test("a pty in raw mode: fixes, bad sentences skipped and counted, fix acquired then lost after 2 s of silence")
    func pty() throws {
        let terminal = try PseudoTerminal()
        let path = terminal.path
        let source = NMEASource(path: path)
        let collector = Collector()
        let stop = StopFlag()
        let worker = Worker {
            try? source.run(deliver: collector.deliver, note: collector.note, shouldStop: { stop.isSet })
        }
        usleep(200_000)
        terminal.closeSlave()  // the source has its own descriptor now
        var text = "$GPRMC,garbage*00\r\n$GPGGA,120000.00,5103.0240,N*7\r\n"
        text += Self.withChecksum("$GPGSV,1,1,01,02,40,083,46*") + "\r\n"
        for sentence in Self.sentences { text += sentence + "\r\n" }
        text += "$GPRMC,120003.00,A,5103.0270,N,01344.2440,E,10.0,90.0,140626,,,A*00\r\n"
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: 13) {
            let chunk = Array(bytes[start..<min(start + 13, bytes.count)])
            _ = terminal.write(chunk)
            usleep(2_000)
        }
        // Wait until the 2 s without a fix pass.
        let deadline = Date().addingTimeInterval(8)
        while Date() < deadline, !collector.gnssStates.contains(.lost) { usleep(50_000) }
        stop.set()
        #expect(worker.join())
        #expect(collector.fixes.count >= 2)
        #expect(collector.fixes.first?.timestamp == 1_781_438_400_000)
        if let first = collector.fixes.first {
            #expect(abs(first.latitude - (51 + 3.024 / 60)) < 1e-9)
            #expect(first.altitude == 158)
        }
        #expect(collector.lost >= 3)
        #expect(collector.skipped == 1)
        #expect(collector.gnssStates.prefix(3) == [.searching, .fixed, .lost])
    }

    @Test("a file or FIFO: read to its end, the last epoch closed, then the source ends")
    func fileAndFIFO() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-nmea-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = "# comment\n" + Self.sentences.joined(separator: "\r\n") + "\r\n"
        try text.write(toFile: directory + "/log.nmea", atomically: false, encoding: .utf8)
        #expect(mkfifo(directory + "/fifo", 0o600) == 0)
        for path in [directory + "/log.nmea", directory + "/fifo"] {
            let collector = Collector()
            let worker = Worker {
                try? NMEASource(path: path).run(deliver: collector.deliver, note: collector.note, shouldStop: { false })
            }
            if path.hasSuffix("fifo") {
                let fd = open(path, O_WRONLY)
                _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            #expect(worker.join(seconds: 10), "\(path)")
            #expect(collector.fixes.count == 3, "\(path)")
            #expect(collector.lost == 0, "\(path)")
        }
    }

    @Test("gpsd client: merges TPVs per epoch and reconnects when gpsd restarts")
    func reconnect() throws {
        let server = try FakeGPSD()
        let source = {
            var source = GPSDSource(host: "127.0.0.1", port: server.port)
            source.initialBackoff = 50
            return source
        }()
        let collector = Collector()
        let stop = StopFlag()
        let worker = Worker {
            try? source.run(deliver: collector.deliver, note: collector.note, shouldStop: { stop.isSet })
        }
        func tpv(_ second: Int, lat: Double, mode: Int = 3) -> String {
            "{\"class\":\"TPV\",\"mode\":\(mode),\"time\":\"2026-06-14T12:00:0\(second).000Z\",\"lat\":\(lat),\"lon\":13.7}\n"
                + "{\"class\":\"TPV\",\"mode\":\(mode),\"time\":\"2026-06-14T12:00:0\(second).000Z\",\"altHAE\":150.5,\"eph\":4.2}\n"
        }
        // First session: two epochs, then gpsd goes away.
        try server.session(send: "{\"class\":\"VERSION\",\"release\":\"3.22\"}\n" + tpv(0, lat: 51.0) + tpv(1, lat: 51.1) + "not json\n")
        // Second session after the "restart".
        try server.session(send: tpv(2, lat: 51.2) + tpv(3, lat: 51.3))
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, collector.fixes.count < 4 { usleep(20_000) }
        stop.set()
        #expect(worker.join())
        #expect(server.watchRequests.allSatisfy { $0.hasPrefix("?WATCH={\"enable\":true,\"json\":true") })
        #expect(server.watchRequests.count == 2)
        #expect(collector.fixes.map(\.latitude) == [51.0, 51.1, 51.2, 51.3])
        #expect(collector.fixes.first?.altitude == 150.5)
        #expect(collector.fixes.first?.horizontalAccuracy == 4.2)
        #expect(collector.lost == 1)
        #expect(collector.notes.contains { if case .info(let text) = $0 { text.contains("reconnected") } else { false } })
    }

    @Test("gpsd client: a u-blox NEO-M8U's IMU reports become accelerometer and gyroscope samples on GNSS time",
          .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func imuReports() throws {
        let server = try FakeGPSD()
        let source = GPSDSource(host: "127.0.0.1", port: server.port)
        let collector = Collector()
        let stop = StopFlag()
        let worker = Worker {
            try? source.run(deliver: collector.deliver, note: collector.note, shouldStop: { stop.isSet })
        }
        // gpsd's own decoding of the module's log, as a client watching it receives it.
        let lines = try SharedData.lines("ublox-neo-m8u.log.chk").filter { $0.hasPrefix("{") }
        try server.session(send: lines.joined(separator: "\n") + "\n")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, collector.fixes.count < 2 { usleep(20_000) }
        stop.set()
        #expect(worker.join())
        let accelerometer = collector.motion.filter { $0.0 == .accelerometer }.map(\.1)
        let gyroscope = collector.motion.filter { $0.0 == .gyroscope }.map(\.1)
        // One sample per distinct ESF-RAW time tag (gpsd repeats readings), none lost.
        #expect(accelerometer.count == 290 && gyroscope.count == 290)
        #expect(collector.lost == 0)
        // On the receiver's GNSS time (its two epochs are 16:52:45 and :46 UTC), in order.
        let epoch = collector.fixes.map(\.timestamp).min() ?? 0
        #expect(epoch == 1_622_047_965_000)
        #expect(accelerometer.allSatisfy { abs($0.timestamp - epoch) < 5_000 })
        #expect(accelerometer.map(\.timestamp) == accelerometer.map(\.timestamp).sorted())
        // Gravity on z, in m/s².
        #expect(accelerometer.allSatisfy { abs($0.z - 9.8) < 0.5 })
    }

    @Test("replay of a gpsd JSON log: the same motion samples as from a live gpsd",
          .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func replayedIMUReports() throws {
        let input = try TraceInput(path: SharedData.path("ublox-neo-m8u.log.chk"))
        #expect(input.format == .gpsdJSON)
        var motion: [MotionSensor: Int] = [:]
        var fixes = 0
        try input.forEachRecord { record, _ in
            if case .sample(.motion(let sensor, _)) = record { motion[sensor, default: 0] += 1 }
            if case .sample(.fix) = record { fixes += 1 }
        }
        #expect(motion == [.accelerometer: 290, .gyroscope: 290])
        #expect(fixes == 2)
    }

    @Test("capture sensors: a short watch of gpsd names its receivers and says one has an IMU",
          .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func surveyWatchesGPSD() throws {
        let server = try FakeGPSD()
        let lines = try SharedData.lines("ublox-neo-m8u.log.chk").filter { $0.hasPrefix("{") }
        let devices = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","activated":"2021-05-26T16:52:40.000Z"}]}"#
        let worker = Worker { try? server.session(send: ([devices] + lines).joined(separator: "\n") + "\n") }
        let survey = SensorSurvey(sysfsRoot: FakeSysfs().path, gpsd: GPSDSource(host: "127.0.0.1", port: server.port), listen: 3_000)
        #expect(worker.join())
        let watched = try #require(survey.gnss.first?.watched)
        #expect(survey.gnss.first?.state == .answering)
        #expect(watched.receivers == ["/dev/ttyACM0 (u-blox)"])
        #expect(watched.motion == ["acc", "gyr"])
        #expect(watched.reports["IMU"] == 890 && watched.reports["TPV"] == 2 && watched.reports["ATT"] == 1)
        #expect(watched.fix)
        // A gpsd that does not answer is not watched.
        let silent = SensorSurvey(sysfsRoot: FakeSysfs().path, gpsd: GPSDSource(host: "127.0.0.1", port: 1), listen: 3_000)
        #expect(silent.gnss.first?.state == .notAnswering && silent.gnss.first?.watched == nil)
    }
}

/// A one-connection-at-a-time TCP server on a free loopback port that plays gpsd: it reads the
/// client's `?WATCH`, sends lines, and closes.
final class FakeGPSD: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var requests: [String] = []

    var watchRequests: [String] { lock.withLock { requests } }

    init() throws {
        (listener, port) = try Loopback.listen(backlog: 4)
    }

    deinit { close(listener) }

    /// Accepts one client, reads its request line, sends `text`, closes.
    func session(send text: String) throws {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { throw POSIXError(.ECONNABORTED) }
        defer { close(client) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(client, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        lock.withLock { requests.append(String(decoding: line, as: UTF8.self)) }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        usleep(100_000)
    }
}
