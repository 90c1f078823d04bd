import CaptureCore
import CaptureGNSS
import CaptureTestSupport
import Testing

/// gpsd's `IMU` and `ATT` reports become motion samples on GNSS time.
@Suite struct GPSDMotionTests {
    private func motion(_ events: [ReceiverEvent]) -> [(MotionSensor, MotionSample)] {
        events.compactMap { if case .motion(let sensor, let sample) = $0 { (sensor, sample) } else { nil } }
    }

    @Test func imuAndATTAreDecodedWithTheirAxes() throws {
        let line = #"{"class":"ATT","device":"/dev/ttyUSB0","time":"2026-06-14T12:00:00.250Z","heading":12.5,"acc_x":0.1,"acc_y":0.2,"acc_z":9.8,"gyro_x":90,"gyro_y":0,"gyro_z":-180,"mag_x":20.5,"mag_y":-3,"mag_z":41}"#
        guard case .motion(let report) = try GPSDMessage(line: line) else { Issue.record("not a motion report"); return }
        #expect(report.className == "ATT" && report.device == "/dev/ttyUSB0")
        #expect(report.timestamp == 1_781_438_400_250)
        #expect(report.acceleration == [0.1, 0.2, 9.8])
        #expect(report.angularRate == [90, 0, -180])
        #expect(report.magneticField == [20.5, -3, 41])
        let samples = report.samples(at: 7)
        #expect(samples.map(\.0) == [.accelerometer, .gyroscope, .magnetometer])
        // gpsd's deg/s become rad/s.
        #expect(abs(samples[1].1.x - .pi / 2) < 1e-12 && abs(samples[1].1.z + .pi) < 1e-12)
        // An axis missing: that sensor is left out and counted; a wrong type rejects the line.
        guard case .motion(let partial) = try GPSDMessage(line: #"{"class":"IMU","acc_x":0.1,"acc_y":0.2,"gyro_x":1,"gyro_y":2,"gyro_z":3}"#)
        else { Issue.record("not a motion report"); return }
        #expect(partial.acceleration == nil && partial.angularRate == [1, 2, 3] && partial.incompleteSensors == 1)
        #expect(throws: GPSDParseError.invalidField(className: "IMU", field: "acc_z")) {
            try GPSDMessage(line: #"{"class":"IMU","acc_x":0.1,"acc_y":0.2,"acc_z":"high"}"#)
        }
        #expect(throws: GPSDParseError.invalidField(className: "IMU", field: "timeTag")) {
            try GPSDMessage(line: #"{"class":"IMU","timeTag":-5,"acc_x":0.1,"acc_y":0.2,"acc_z":1}"#)
        }
    }

    @Test func reportsWithoutTimeFollowTheLatestEpochAndTheHostClock() {
        var stream = GPSDStream()
        let att = #"{"class":"ATT","pitch":1.5,"mag_x":20,"mag_y":-3,"mag_z":41}"#
        // Before any GNSS time: dropped, and counted.
        #expect(motion(stream.line(att, receivedAt: 1_000)).isEmpty)
        #expect(stream.stats.motion.withoutTime == 1)
        _ = stream.line(#"{"class":"TPV","mode":3,"time":"2026-06-14T12:00:00.000Z","lat":51.05,"lon":13.74}"#, receivedAt: 5_000)
        // 120 ms of host time after the epoch arrived: 120 ms after the epoch's GNSS time.
        let samples = motion(stream.line(att, receivedAt: 5_120))
        #expect(samples.count == 1 && samples[0].0 == .magnetometer)
        #expect(samples[0].1.timestamp == 1_781_438_400_120)
        // Replayed (no reception time): the epoch's time.
        #expect(motion(stream.line(att)).first?.1.timestamp == 1_781_438_400_000)
        // Attitude alone is not a motion sample.
        #expect(motion(stream.line(#"{"class":"ATT","time":"2026-06-14T12:00:00.500Z","pitch":1.5,"roll":0.2}"#)).isEmpty)
        #expect(stream.stats.motion.samples[.magnetometer] == 2)
        #expect(stream.stats.classes["ATT"] == 4)
    }

    /// The NEO-M8U of gpsd's regression suite: its `.chk` (gpsd's decoding) holds 830 IMU reports
    /// of ESF-RAW and 60 of ESF-MEAS, 400 of them before the first TPV. Through the gpsd path
    /// they must give what capture's own UBX decoder gives for the receiver's bytes.
    @Test(SharedData.required)
    func uBloxIMUThroughGPSDMatchesTheUBXDecoder() throws {
        var gpsd = GPSDStream()
        var events: [ReceiverEvent] = []
        for line in try SharedData.lines("ublox-neo-m8u.log.chk") { events += gpsd.line(line) }
        events += gpsd.finish()
        let viaGPSD = motion(events)

        var ubx = GNSSReceiverStream()
        let bytes = try SharedData.bytes("ublox-neo-m8u.log")
        let viaUBX = motion(ubx.push(bytes) + ubx.finish())

        // gpsd repeats readings: 830 ESF-RAW reports hold 290 distinct time tags.
        let rawReports = try SharedData.lines("ublox-neo-m8u.log.chk").filter { $0.contains(#""msg":"UBX-ESF-RAW""#) }
        let tags = Set(rawReports.compactMap { $0.split(separator: ",").first { $0.hasPrefix(#""timeTag":"#) } })
        #expect(rawReports.count == 830 && tags.count == 290)
        // Every ESF-RAW report has all three axes of both sensors: one sample each per tag.
        #expect(viaGPSD.filter { $0.0 == .accelerometer }.count == tags.count)
        #expect(viaGPSD.filter { $0.0 == .gyroscope }.count == tags.count)
        // The ESF-RAW repeats, and two ESF-MEAS gyroscope readings gpsd also sends twice.
        #expect(gpsd.stats.motion.repeated == rawReports.count - tags.count + 2)
        #expect(gpsd.stats.motion.measSkippedForRaw > 0)
        #expect(gpsd.stats.motion.withoutTime == 0)
        #expect(viaGPSD.count == viaUBX.count)
        // The same readings in the same order, and the same times to within an ESF-RAW message
        // (the two paths anchor at the first message after an epoch; gpsd splits messages).
        var worst: Int64 = 0
        for (a, b) in zip(viaGPSD, viaUBX) {
            #expect(a.0 == b.0)
            #expect(abs(a.1.x - b.1.x) < 1e-9 && abs(a.1.y - b.1.y) < 1e-9 && abs(a.1.z - b.1.z) < 1e-9)
            worst = max(worst, abs(a.1.timestamp - b.1.timestamp))
        }
        #expect(worst <= 100, "largest time difference \(worst) ms")
        // Samples lie around the log's two epochs (16:52:45 and :46 UTC), spaced by the sensor.
        let times = viaGPSD.map(\.1.timestamp)
        #expect(times.min()! > 1_622_047_960_000 && times.max()! < 1_622_047_970_000)
    }
}
