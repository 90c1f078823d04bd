import CaptureCore
import CaptureGNSS
import CaptureTestSupport
import Foundation
import Testing

@Suite("NMEA and UBX mixed in one stream")
struct MixedReceiverStreamTests {
    @Test("NMEA sentences and UBX frames interleaved: both read, one fix per epoch")
    func mixed() {
        var bytes: [UInt8] = Array("# a comment\r\n".utf8)
        // 16:52:44 from NMEA only.
        bytes += nmea("GPRMC,165244.00,A,5135.46103,N,00001.47818,W,0.01,,260521,,,A")
        bytes += nmea("GPGGA,165244.00,5135.46103,N,00001.47818,W,1,11,1.0,7.6,M,45.5,M,,")
        // 16:52:45 from both: UBX first.
        bytes += navPVT() + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13])
        bytes += nmea("GPRMC,165245.00,A,5135.46103,N,00001.47818,W,0.01,,260521,,,A")
        bytes += [0xB5, 0x62, 0x01]  // garbage between sentences
        bytes += nmea("GPGGA,165245.00,5135.46103,N,00001.47818,W,1,11,1.0,7.6,M,45.5,M,,")
        // 16:52:46 from UBX only.
        bytes += navPVT(iTOW: 319_984_000, second: 46) + frame(0x01, 0x61, [0x80, 0x91, 0x12, 0x13])
        var whole = GNSSReceiverStream()
        let all = fixes(whole.push(bytes) + whole.finish())
        // (The NMEA epoch of :44 closes only when the next NMEA time arrives, after the UBX :45.)
        #expect(all.map(\.timestamp).sorted() == [1_622_047_964_000, 1_622_047_965_000, 1_622_047_966_000])
        #expect(whole.stats.duplicateFixes == 1)
        #expect(whole.stats.nmea.comments == 1)
        #expect(whole.stats.framing.frames == 4)
        // Byte by byte, the same.
        var pieces = GNSSReceiverStream()
        var events: [ReceiverEvent] = []
        for byte in bytes { events += pieces.push([byte]) }
        events += pieces.finish()
        #expect(fixes(events) == all)
    }

    /// A real RTCM 3 frame from the ZED-F9T log: message 1230 (GLONASS code-phase biases),
    /// `0xD3`, length 8, the message, its CRC-24Q.
    static let rtcm1230: [UInt8] = [0xD3, 0x00, 0x08, 0x4C, 0xE0, 0x00, 0x8A, 0x00, 0x00, 0x00, 0x00, 0xA8, 0xF7, 0x2A]

    @Test("RTCM 3 frames between NMEA sentences and UBX frames are skipped and counted, not taken for damaged NMEA")
    func rtcm3() {
        let rtcm = Self.rtcm1230
        var bytes = rtcm + nmea("GPRMC,165244.00,A,5135.46103,N,00001.47818,W,0.01,,260521,,,A") + rtcm
        bytes += navPVT() + rtcm + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13]) + rtcm
        bytes += nmea("GPRMC,165246.00,A,5135.46103,N,00001.47818,W,0.01,,260521,,,A")
        for chunk in [bytes.count, 1] {
            var stream = GNSSReceiverStream()
            var events: [ReceiverEvent] = []
            var start = 0
            while start < bytes.count {
                events += stream.push(bytes[start..<min(bytes.count, start + chunk)])
                start += chunk
            }
            events += stream.finish()
            // (The NMEA epoch of :44 closes when the next NMEA time arrives, after the UBX :45.)
            #expect(fixes(events).map(\.timestamp).sorted() == [1_622_047_964_000, 1_622_047_965_000, 1_622_047_966_000], "chunk \(chunk)")
            #expect(stream.stats.framing.rtcm3Frames == 4)
            #expect(stream.stats.rejected == 0)
            #expect(stream.stats.unused == 4)
        }
        // A damaged copy (one bit of its message flipped) is no frame: its bytes are text.
        var damaged = rtcm
        damaged[7] ^= 0x01
        var stream = GNSSReceiverStream()
        _ = stream.push(damaged + nmea("GPRMC,165244.00,A,5135.46103,N,00001.47818,W,0.01,,260521,,,A")) + stream.finish()
        #expect(stream.stats.framing.rtcm3Frames == 0)
        #expect(stream.stats.nmea.sentences == 1)
        // An RTCM 3 frame cut off by the end of the input is counted as such.
        var cut = GNSSReceiverStream()
        _ = cut.push(Array(rtcm.prefix(10))) + cut.finish()
        #expect(cut.stats.framing.truncatedAtEnd == 1)
    }
}

@Suite("GNSSReceiverStream on the shared receiver logs")
struct ReceiverStreamRealLogTests {
    static let logs = [
        "eXplorist210.log", "garmin15x.log", "nmea-fuzzy-cases.log", "quectel-eg25-g.log", "u-blox-m8t-time.log",
        "ublox-8.log", "ublox-neo-m8n.log", "ublox-neo-m8t.log", "ublox-neo-m8u-hnr.log", "ublox-neo-m8u.log",
        "ublox-neo-m9n-nmea.log", "ublox-zed-f9t-rtcm3.log",
    ]

    @Test(
        "the same events and counters whether the bytes come whole or in pieces",
        .enabled(if: SharedData.isAvailable, SharedData.absentReason), arguments: logs)
    func chunkingInvariance(log: String) throws {
        let bytes = try SharedData.bytes(log)
        var whole = GNSSReceiverStream()
        let expected = whole.push(bytes) + whole.finish()
        var pieces = GNSSReceiverStream()
        var events: [ReceiverEvent] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int(bytes[start] % 97) + 1)
            events += pieces.push(bytes[start..<end])
            start = end
        }
        events += pieces.finish()
        #expect(events == expected, "\(log)")
        #expect(pieces.stats == whole.stats, "\(log)")
        #expect(!expected.isEmpty, "\(log)")
        // No UBX frame in these logs is damaged, but the NEO-M8N, NEO-M8T and M8T timing logs end
        // in the middle of one (a NAV-TIMEGPS, an RXM-RAWX, a NAV-SAT), the ZED-F9T log in the
        // middle of an RTCM 3 frame (a u-blox 4072).
        #expect(whole.stats.framing.badChecksum == 0, "\(log)")
        let cutOff = ["ublox-neo-m8n.log", "ublox-neo-m8t.log", "u-blox-m8t-time.log", "ublox-zed-f9t-rtcm3.log"].contains(log) ? 1 : 0
        // The ZED-F9T's RTCM 3 frames (182, counted by an independent CRC-24Q check) are skipped,
        // not taken for damaged NMEA.
        #expect(whole.stats.framing.rtcm3Frames == (log == "ublox-zed-f9t-rtcm3.log" ? 182 : 0), "\(log)")
        #expect(whole.stats.framing.truncatedAtEnd == cutOff, "\(log)")
    }

    @Test(
        "the NEO-M8U's IMU: every ESF-RAW reading gpsd decodes is a sample, every ESF-MEAS one counted as skipped",
        .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func everyIMUReadingAccountedFor() throws {
        // gpsd's readings: its IMU reports, one per distinct time tag (gpsd repeats many ESF-RAW
        // ones: 830 reports of 290 readings) and message.
        var raw = Set<Int>()
        var meas = Set<[Int]>()
        let text = try String(contentsOfFile: SharedData.path("ublox-neo-m8u.log.chk"), encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["class"] as? String == "IMU", let tag = object["timeTag"] as? Int
            else { continue }
            if object["msg"] as? String == "UBX-ESF-RAW" { raw.insert(tag) }
            if object["msg"] as? String == "UBX-ESF-MEAS" { meas.insert([tag, object["acc_x"] == nil ? 0 : 1]) }
        }
        var stream = GNSSReceiverStream()
        let events = stream.push(try SharedData.bytes("ublox-neo-m8u.log")) + stream.finish()
        let motion = events.compactMap { if case .motion(let sensor, _) = $0 { sensor } else { nil } }
        #expect(motion.filter { $0 == .accelerometer }.count == raw.count)
        #expect(motion.filter { $0 == .gyroscope }.count == raw.count)
        #expect(stream.stats.sensors.measSkippedForRaw == meas.count)
        #expect(stream.stats.sensors.withoutTime == 0 && stream.stats.sensors.incomplete == 0)
        #expect(stream.stats.unused >= meas.count)
        #expect((raw.count, meas.count) == (290, 58))
    }

    @Test("random bytes and damaged copies of a real log never trap", .enabled(if: SharedData.isAvailable, SharedData.absentReason))
    func damagedInput() throws {
        var random = SplitMix64(seed: 13)
        let original = try SharedData.bytes("ublox-neo-m8u.log")
        for round in 0..<20 {
            var bytes = original
            for _ in 0..<(round * 10) {
                let index = Int(random.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 2 == 1 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count)))) }
            var stream = GNSSReceiverStream()
            let events = stream.push(bytes) + stream.finish()
            for case .gnss(.fix(let fix)) in events {
                #expect((-90...90).contains(fix.latitude) && (-180...180).contains(fix.longitude))
            }
        }
        var noise = GNSSReceiverStream()
        let garbage = (0..<100_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        _ = noise.push(garbage) + noise.finish()
        #expect(noise.stats.framing.frames == 0)
    }
}
