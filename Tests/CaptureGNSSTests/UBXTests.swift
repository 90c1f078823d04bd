import CaptureCore
import CaptureGNSS
import Foundation
import Testing

// The frame builders below are shared by the UBX tests in this target (UBXHighRateTests,
// UBXSensorTests, GNSSReceiverStreamTests).

/// Little-endian payload builder for hand-made UBX frames.
struct Payload {
    var bytes: [UInt8]
    init(count: Int) { bytes = [UInt8](repeating: 0, count: count) }
    mutating func u8(_ at: Int, _ value: UInt8) { bytes[at] = value }
    mutating func u16(_ at: Int, _ value: UInt16) {
        bytes[at] = UInt8(value & 0xFF)
        bytes[at + 1] = UInt8(value >> 8)
    }
    mutating func u32(_ at: Int, _ value: UInt32) {
        for index in 0..<4 { bytes[at + index] = UInt8(value >> (8 * UInt32(index)) & 0xFF) }
    }
    mutating func i32(_ at: Int, _ value: Int32) { u32(at, UInt32(bitPattern: value)) }
}

func frame(_ messageClass: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
    UBXFrame(messageClass: messageClass, messageID: id, payload: payload).bytes
}

/// NAV-PVT (92 bytes) at 2021-05-26 16:52:45 UTC, iTOW 319983000, 3D fix, gnssFixOK.
func navPVT(
    iTOW: UInt32 = 319_983_000, second: UInt8 = 45, lat: Int32 = 515_910_172, lon: Int32 = -246_364,
    fixType: UInt8 = 3, fixOK: Bool = true, date: (month: UInt8, day: UInt8, hour: UInt8, minute: UInt8) = (5, 26, 16, 52)
) -> [UInt8] {
    var p = Payload(count: 92)
    p.u32(0, iTOW)
    p.u16(4, 2021)
    p.u8(6, date.month)
    p.u8(7, date.day)
    p.u8(8, date.hour)
    p.u8(9, date.minute)
    p.u8(10, second)
    p.u8(11, 0x07)  // validDate, validTime, fullyResolved
    p.i32(16, 217_381)  // nano
    p.u8(20, fixType)
    p.u8(21, fixOK ? 0x01 : 0x00)
    p.u8(23, 11)  // numSV
    p.i32(24, lon)
    p.i32(28, lat)
    p.i32(32, 53_105)  // height, mm
    p.i32(36, 7_598)  // hMSL, mm
    p.u32(40, 2_111)  // hAcc, mm
    p.u32(44, 2_822)  // vAcc, mm
    p.i32(60, 1_500)  // gSpeed, mm/s
    p.i32(64, 31_426_160)  // headMot, 1e-5 deg
    p.u16(76, 154)  // pDOP 1.54
    return frame(0x01, 0x07, p.bytes)
}

/// A message with only the iTOW filled, of the given NAV id and length.
func nav(_ id: UInt8, count: Int, iTOW: UInt32, fill: (inout Payload) -> Void = { _ in }) -> [UInt8] {
    var p = Payload(count: count)
    p.u32(0, iTOW)
    fill(&p)
    return frame(0x01, id, p.bytes)
}

func nmea(_ body: String) -> [UInt8] {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    return Array("$\(body)*\(String(format: "%02X", checksum))\r\n".utf8)
}

func fixes(_ events: [ReceiverEvent]) -> [Fix] {
    events.compactMap { if case .gnss(.fix(let fix)) = $0 { fix } else { nil } }
}

@Suite("UBX framing: checksums, resynchronisation, truncation")
struct UBXFramingTests {
    @Test("the 8-bit Fletcher checksum of a known frame (ACK-ACK for CFG-MSG)")
    func knownChecksum() {
        let bytes = frame(0x05, 0x01, [0x06, 0x01])
        #expect(bytes == [0xB5, 0x62, 0x05, 0x01, 0x02, 0x00, 0x06, 0x01, 0x0F, 0x38])
    }

    @Test("a frame with a bad checksum is rejected, and the good frame after it is found")
    func checksumFailure() {
        var bad = frame(0x05, 0x01, [0x06, 0x01])
        bad[bad.count - 1] ^= 0xFF
        let good = frame(0x05, 0x00, [0x06, 0x01])
        var splitter = UBXFrameSplitter()
        let pieces = splitter.push(bad + good) + splitter.finish()
        let frames = pieces.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        #expect(frames == [UBXFrame(messageClass: 0x05, messageID: 0x00, payload: [0x06, 0x01])])
        #expect(splitter.stats.badChecksum == 1)
        #expect(splitter.stats.frames == 1)
    }

    @Test("resynchronises after garbage, stray sync bytes and a bogus header")
    func resyncAfterGarbage() {
        let garbage: [UInt8] = [0x00, 0xB5, 0x13, 0xB5, 0x62, 0x99, 0xFF, 0xB5, 0x62, 0x01, 0x07, 0x20, 0x00, 0x42, 0xB5]
        let good = frame(0x01, 0x61, [0x10, 0x20, 0x30, 0x40])
        var splitter = UBXFrameSplitter()
        let pieces = splitter.push(garbage + good + [0x0D, 0x0A]) + splitter.finish()
        let frames = pieces.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        #expect(frames.count == 1)
        #expect(frames.first?.kind == 0x0161)
        // Every byte not in the frame comes out as text, in order.
        let text: [UInt8] = pieces.flatMap { piece -> [UInt8] in if case .text(let t) = piece { t } else { [] } }
        #expect(text == garbage + [0x0D, 0x0A])
    }

    @Test("a frame split over many reads comes out whole")
    func splitAcrossReads() {
        let bytes = navPVT() + frame(0x01, 0x61, [0, 0, 0, 0])
        var splitter = UBXFrameSplitter()
        var frames = 0
        for byte in bytes {
            for case .frame in splitter.push([byte]) { frames += 1 }
        }
        for case .frame in splitter.finish() { frames += 1 }
        #expect(frames == 2)
        #expect(splitter.stats.rejected == 0)
    }

    @Test("a frame cut off at the end of the input is counted, not decoded")
    func truncatedAtEnd() {
        let whole = navPVT()
        var stream = GNSSReceiverStream()
        let events = stream.push(nmea("GPGGA,165245.00,5135.46103,N,00001.47818,W,1,11,1.0,7.6,M,45.5,M,,")) + stream.push(whole.dropLast(3))
            + stream.finish()
        #expect(stream.stats.framing.truncatedAtEnd == 1)
        #expect(stream.stats.framing.frames == 0)
        #expect(stream.stats.decoded.isEmpty)
        // The NMEA sentence before it is still read (a GGA alone has no date: no fix).
        #expect(stream.stats.nmea.decoded["GGA"] == 1)
        #expect(fixes(events).isEmpty)
    }
}

@Suite("UBX navigation messages become fixes")
struct UBXNavigationTests {
    @Test("NAV-PVT: position, accuracy, speed, heading; time from its UTC fields")
    func navPVTFix() throws {
        var stream = GNSSReceiverStream()
        let events = stream.push(navPVT() + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13])) + stream.finish()
        let fix = try #require(fixes(events).first)
        #expect(fixes(events).count == 1)
        #expect(fix.timestamp == 1_622_047_965_000)  // 2021-05-26T16:52:45.000Z (nano 217 µs rounds away)
        #expect(abs(fix.latitude - 51.5910172) < 1e-9)
        #expect(abs(fix.longitude - -0.0246364) < 1e-9)
        #expect(abs((fix.altitude ?? 0) - 53.105) < 1e-9)
        #expect(abs((fix.horizontalAccuracy ?? 0) - 2.111) < 1e-9)
        #expect(abs((fix.verticalAccuracy ?? 0) - 2.822) < 1e-9)
        #expect(abs((fix.speed ?? 0) - 1.5) < 1e-9)
        #expect(abs((fix.course ?? 0) - 314.2616) < 1e-9)
        // Fix quality: numSV, NAV-PVT's pDOP (no NAV-DOP here: no HDOP/VDOP) and the 3D fix type.
        #expect(fix.satellites == 11)
        #expect(abs((fix.pdop ?? 0) - 1.54) < 1e-9)
        #expect(fix.hdop == nil && fix.vdop == nil)
        #expect(fix.mode == .threeD)
        if case .gnss(.transition(.acquired)) = events.first {} else { Issue.record("no fix-acquired event first") }
    }

    @Test("NAV-EOE closes the epoch at once; without it the next iTOW does")
    func epochClosing() {
        var stream = GNSSReceiverStream()
        #expect(fixes(stream.push(navPVT())).isEmpty)
        #expect(fixes(stream.push(frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13]))).count == 1)
        #expect(fixes(stream.push(navPVT(iTOW: 319_984_000, second: 46))).isEmpty)
        #expect(fixes(stream.push(navPVT(iTOW: 319_985_000, second: 47))).count == 1)
        #expect(fixes(stream.finish()).count == 1)
    }

    @Test("without NAV-EOE, the kind that ended the last epoch closes the next one at once")
    func epochEnderLearned() {
        func timeGPS(_ iTOW: UInt32) -> [UInt8] {
            nav(0x20, count: 16, iTOW: iTOW) { p in
                p.u16(8, 2159)
                p.u8(10, 18)
                p.u8(11, 0x07)
            }
        }
        var stream = GNSSReceiverStream()
        // Epoch 1 closes only when epoch 2 starts; from then on NAV-TIMEGPS ends an epoch.
        #expect(fixes(stream.push(navPVT() + timeGPS(319_983_000))).isEmpty)
        #expect(fixes(stream.push(navPVT(iTOW: 319_984_000, second: 46))).count == 1)
        #expect(fixes(stream.push(timeGPS(319_984_000))).count == 1)
        #expect(fixes(stream.push(navPVT(iTOW: 319_985_000, second: 47))).isEmpty)
        #expect(fixes(stream.push(timeGPS(319_985_000))).count == 1)
        // A late message of a closed epoch is ignored, not a new epoch.
        #expect(fixes(stream.push(nav(0x04, count: 18, iTOW: 319_985_000)) + stream.finish()).isEmpty)
        #expect(stream.stats.assembly.late == 1)
        #expect(stream.stats.assembly.epochs == 3)
        #expect(stream.stats.assembly.closedOnLastKind == 2)
    }

    @Test("NAV-PVT without gnssFixOK, or with a dead-reckoning-only fix or none, is no fix")
    func noFix() {
        for (fixType, ok) in [(UInt8(3), false), (1, true), (0, true), (5, false)] {
            var stream = GNSSReceiverStream()
            #expect(fixes(stream.push(navPVT(fixType: fixType, fixOK: ok)) + stream.finish()).isEmpty, "fixType \(fixType) ok \(ok)")
        }
    }

    @Test("a timing receiver's time-only fix (type 5, gnssFixOK) is a 3D fix at its held position")
    func timeOnlyFix() throws {
        var stream = GNSSReceiverStream()
        let fix = try #require(fixes(stream.push(navPVT(fixType: 5)) + stream.finish()).first)
        #expect(fix.timestamp == 1_622_047_965_000)
        #expect(abs(fix.latitude - 51.5910172) < 1e-9)
        #expect(fix.mode == .threeD)
    }

    @Test("NAV-POSLLH + NAV-SOL + NAV-VELNED + NAV-DOP are merged per iTOW")
    func legacyCombination() throws {
        let iTOW: UInt32 = 420_964_000
        var bytes: [UInt8] = []
        bytes += nav(0x02, count: 28, iTOW: iTOW) { p in
            p.i32(4, -1_213_143_092)
            p.i32(8, 440_688_096)
            p.i32(12, 1_110_675)
            p.u32(20, 8_400)
            p.u32(24, 34_040)
        }
        bytes += nav(0x06, count: 52, iTOW: iTOW) { p in
            p.u16(8, 2024)  // week
            p.u8(10, 3)
            p.u8(11, 0x0D)  // GPSfixOK, WKNSET, TOWSET
            p.u8(47, 9)
        }
        bytes += nav(0x12, count: 36, iTOW: iTOW) { p in
            p.u32(20, 250)  // gSpeed 2.5 m/s
            p.i32(24, 9_000_000)  // heading 90°
        }
        bytes += nav(0x04, count: 18, iTOW: iTOW) { p in
            p.u16(6, 210)
            p.u16(10, 180)
            p.u16(12, 95)
        }
        var assembler = UBXEpochAssembler()
        var splitter = UBXFrameSplitter()
        var events: [GNSSEvent] = []
        for case .frame(let f) in splitter.push(bytes) { events += assembler.add(try UBXMessage(f)) }
        let epoch = try #require(assembler.openEpoch)
        #expect(epoch.satellitesUsed == 9)
        #expect(abs((epoch.hDOP ?? 0) - 0.95) < 1e-9)
        #expect(abs((epoch.vDOP ?? 0) - 1.8) < 1e-9)
        #expect(abs((epoch.pDOP ?? 0) - 2.1) < 1e-9)
        events += assembler.finish()
        let fix = try #require(events.compactMap { if case .fix(let f) = $0 { f } else { nil } }.first)
        // GPS week 2024, 420964 s, minus 18 leap seconds (table) = 2018-10-25T20:55:46Z.
        #expect(fix.timestamp == 1_540_500_946_000)
        #expect(abs(fix.latitude - 44.0688096) < 1e-9)
        #expect(abs(fix.longitude - -121.3143092) < 1e-9)
        #expect(abs((fix.altitude ?? 0) - 1110.675) < 1e-9)
        #expect(abs((fix.horizontalAccuracy ?? 0) - 8.4) < 1e-9)
        #expect(abs((fix.speed ?? 0) - 2.5) < 1e-9)
        #expect(abs((fix.course ?? 0) - 90) < 1e-9)
        #expect(fix.satellites == 9)
        #expect(abs((fix.hdop ?? 0) - 0.95) < 1e-9)
        #expect(abs((fix.vdop ?? 0) - 1.8) < 1e-9)
        #expect(abs((fix.pdop ?? 0) - 2.1) < 1e-9)
        #expect(fix.mode == .threeD)
    }

    @Test("NAV-SOL alone: ECEF position and velocity converted (gpsd's values for the NEO-M8T)")
    func ecefOnly() throws {
        // gpsd: ecefx -2386071.06, ecefy -3922190.51, ecefz 4414360.73 →
        // lat 44.068809596, lon -121.314309171, altHAE 1110.6751.
        let geodetic = ECEF.geodetic(x: -2_386_071.06, y: -3_922_190.51, z: 4_414_360.73)
        #expect(abs(geodetic.latitude - 44.068809596) < 1e-8)
        #expect(abs(geodetic.longitude - -121.314309171) < 1e-8)
        #expect(abs(geodetic.height - 1110.6751) < 1e-3)
        // A velocity due east at the equator, 0° E: ECEF +y.
        let ned = ECEF.northEastDown(velocity: (0, 3, 0), latitude: 0, longitude: 0)
        #expect(abs(ned.east - 3) < 1e-12 && abs(ned.north) < 1e-12 && abs(ned.down) < 1e-12)
    }

    @Test("GPS week and time of week to Unix time, with the receiver's or the table's leap seconds")
    func gpsTime() {
        #expect(GPSTime.unixMilliseconds(week: 2024, timeOfWeek: 420_964_000, leapSeconds: 18) == 1_540_500_946_000)
        #expect(GPSTime.unixMilliseconds(week: 2024, timeOfWeek: 420_964_000, leapSeconds: nil) == 1_540_500_946_000)
        #expect(GPSTime.unixMilliseconds(week: 0, timeOfWeek: 0, leapSeconds: 0) == 315_964_800_000)
        #expect(GPSTime.leapSeconds(atGPSSeconds: 0) == 13)
    }
}
