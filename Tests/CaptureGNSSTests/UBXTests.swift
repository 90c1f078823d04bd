import CaptureCore
import CaptureGNSS
import Foundation
import Testing

import CaptureTestSupport

/// Little-endian payload builder for hand-made UBX frames.
private struct Payload {
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

private func frame(_ messageClass: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
    UBXFrame(messageClass: messageClass, messageID: id, payload: payload).bytes
}

/// NAV-PVT (92 bytes) at 2021-05-26 16:52:45 UTC, iTOW 319983000, 3D fix, gnssFixOK.
private func navPVT(
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
private func nav(_ id: UInt8, count: Int, iTOW: UInt32, fill: (inout Payload) -> Void = { _ in }) -> [UInt8] {
    var p = Payload(count: count)
    p.u32(0, iTOW)
    fill(&p)
    return frame(0x01, id, p.bytes)
}

private func nmea(_ body: String) -> [UInt8] {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    return Array("$\(body)*\(String(format: "%02X", checksum))\r\n".utf8)
}

private func fixes(_ events: [ReceiverEvent]) -> [Fix] {
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

/// HNR-PVT (72 bytes) at 2021-06-16 23:46:`second`.`tenths` UTC, 3D fix, GPSfixOK.
private func hnrPVT(tenths: Int, second: UInt8 = 5, lon: Int32 = -1_213_140_876, fixType: UInt8 = 3, fixOK: Bool = true) -> [UInt8] {
    var p = Payload(count: 72)
    p.u32(0, UInt32(344_778_000 + Int(second) * 1000 + tenths * 100))
    p.u16(4, 2021)
    p.u8(6, 6)
    p.u8(7, 16)
    p.u8(8, 23)
    p.u8(9, 46)
    p.u8(10, second)
    p.u8(11, 0x07)  // validDate, validTime, fullyResolved
    p.i32(12, Int32(tenths * 100_000_000 + 8))  // nano
    p.u8(16, fixType)
    p.u8(17, fixOK ? 0x1D : 0x1C)
    p.i32(20, lon)
    p.i32(24, 440_688_578)
    p.i32(28, 1_111_800)  // height, mm
    p.i32(32, 1_133_150)  // hMSL, mm
    p.i32(36, 33)  // gSpeed, mm/s
    p.i32(44, -12_494_290)  // headMot, 1e-5 deg (−124.9429°)
    p.u32(52, 3_024)  // hAcc, mm
    p.u32(56, 6_053)  // vAcc, mm
    return frame(0x28, 0x00, p.bytes)
}

@Suite("UBX-HNR-PVT: a dead-reckoning module's high-rate solution")
struct UBXHighRateTests {
    @Test("each HNR-PVT is a fix: position, height, accuracy, speed, course, time from its UTC fields")
    func fields() throws {
        var stream = GNSSReceiverStream()
        let events = stream.push(hnrPVT(tenths: 1))
        let fix = try #require(fixes(events).first)
        #expect(fixes(events).count == 1)
        #expect(fix.timestamp == 1_623_887_165_100)  // 2021-06-16T23:46:05.100Z
        #expect(abs(fix.latitude - 44.0688578) < 1e-9 && abs(fix.longitude - -121.3140876) < 1e-9)
        #expect(abs((fix.altitude ?? 0) - 1111.8) < 1e-9)
        #expect(abs((fix.horizontalAccuracy ?? 0) - 3.024) < 1e-9 && abs((fix.verticalAccuracy ?? 0) - 6.053) < 1e-9)
        #expect(abs((fix.speed ?? 0) - 0.033) < 1e-9)
        #expect(abs((fix.course ?? 0) - 235.0571) < 1e-9)
        #expect(fix.mode == .threeD)
        #expect(stream.stats.assembly.highRateFixes == 1)
        if case .gnss(.transition(.acquired)) = events.first {} else { Issue.record("no fix-acquired event first") }
    }

    @Test("HNR-PVT without GPSfixOK, or dead reckoning only, is no fix")
    func noFix() {
        var stream = GNSSReceiverStream()
        #expect(fixes(stream.push(hnrPVT(tenths: 0, fixOK: false) + hnrPVT(tenths: 1, fixType: 1))).isEmpty)
        #expect(stream.stats.assembly.highRateWithoutFix == 2)
    }

    @Test("the NAV-PVT epoch that repeats an HNR-PVT time, arriving after later ones, is not a second fix")
    func navigationEpochCoveredByHighRate() {
        var stream = GNSSReceiverStream()
        // 10 Hz HNR-PVT from 05.0 to 05.3, then the 1 Hz NAV-PVT of 05.0 (UTC 05.000, with its own
        // slightly different position) closed by its NAV-EOE, then HNR-PVT goes on.
        var bytes = (0...3).flatMap { hnrPVT(tenths: $0) }
        let iTOW: UInt32 = 344_783_000
        bytes += navPVT(iTOW: iTOW, second: 5, lat: 440_688_580, lon: -1_213_140_887, date: (6, 16, 23, 46))
        bytes += frame(0x01, 0x61, [UInt8(iTOW & 0xFF), UInt8(iTOW >> 8 & 0xFF), UInt8(iTOW >> 16 & 0xFF), UInt8(iTOW >> 24)])
        bytes += (4...5).flatMap { hnrPVT(tenths: $0) }
        let result = fixes(stream.push(bytes) + stream.finish())
        #expect(result.count == 6)
        #expect(result.map(\.timestamp) == result.map(\.timestamp).sorted())
        #expect(result.allSatisfy { abs($0.longitude - -121.3140876) < 1e-9 })
        #expect(stream.stats.assembly.fixesCoveredByHighRate == 1)
        // Without HNR-PVT, the same NAV-PVT epoch is a fix.
        var alone = GNSSReceiverStream()
        let own = fixes(alone.push(navPVT(iTOW: iTOW, second: 5, date: (6, 16, 23, 46))) + alone.finish())
        #expect(own.map(\.timestamp) == [1_623_887_165_000])
    }
}

@Suite("UBX-ESF sensor data: scaling and time")
struct UBXSensorTests {
    @Test("24-bit signed fields; accelerometer m/s² · 2⁻¹⁰; gyroscope deg/s · 2⁻¹² → rad/s")
    func scaling() throws {
        let accel = UBXSensorDatum(UInt32(16) << 24 | 0xFF_FC00)  // −1024
        #expect(accel.signedField == -1024)
        let a = try #require(accel.motion)
        #expect(a.sensor == .accelerometer && a.axis == 0 && a.value == -1)
        let gyro = UBXSensorDatum(UInt32(5) << 24 | 4096)  // z, 1 deg/s
        let g = try #require(gyro.motion)
        #expect(g.sensor == .gyroscope && g.axis == 2 && abs(g.value - Double.pi / 180) < 1e-15)
        #expect(UBXSensorDatum(UInt32(12) << 24 | 2479).motion == nil)  // temperature
        #expect(UBXSensorDatum(0x7F_FFFF).signedField == 8_388_607)
        #expect(UBXSensorDatum(0x80_0000).signedField == -8_388_608)
    }

    /// ESF-RAW with `count` sample sets (accel x y z, gyro x y z, temperature) 256 ticks apart.
    private func esfRaw(firstTag: UInt32, count: Int) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: 4)
        for set in 0..<count {
            let tag = firstTag + UInt32(set * 256)
            for (type, value) in [(16, 26), (17, 232), (18, 10274), (14, -656), (13, -2717), (5, 249), (12, 2479)] {
                let word = UInt32(type) << 24 | UInt32(bitPattern: Int32(value)) & 0xFF_FFFF
                var p = Payload(count: 8)
                p.u32(0, word)
                p.u32(4, tag)
                payload += p.bytes
            }
        }
        return frame(0x10, 0x03, payload)
    }

    @Test("ESF-RAW before the first epoch is held, then placed before it on GNSS time; MEAS skipped when RAW is sent")
    func rawSamplesOnGNSSTime() throws {
        var meas = Payload(count: 8 + 12)
        meas.u32(0, 1000)
        meas.u16(4, 3 << 11)
        for (index, type) in [16, 17, 18].enumerated() { meas.u32(8 + 4 * index, UInt32(type) << 24 | 1024) }
        var stream = GNSSReceiverStream()
        var events = stream.push(esfRaw(firstTag: 10_000, count: 10) + frame(0x10, 0x02, meas.bytes))
        #expect(events.isEmpty)
        events += stream.push(navPVT() + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13]))
        events += stream.push(esfRaw(firstTag: 12_560, count: 10)) + stream.finish()
        let accel = events.compactMap { if case .motion(.accelerometer, let s) = $0 { s } else { nil } }
        let gyro = events.compactMap { if case .motion(.gyroscope, let s) = $0 { s } else { nil } }
        #expect(accel.count == 20 && gyro.count == 20)
        #expect(stream.stats.sensors.measSkippedForRaw == 1)
        let fixTime: Int64 = 1_622_047_965_000
        // The held message's last set is at the epoch; sets are 10 ms apart (256 ticks).
        #expect(accel[9].timestamp == fixTime)
        #expect(accel[0].timestamp == fixTime - 90)
        #expect(accel[10].timestamp == fixTime + 10)
        #expect(accel[0].x == 26.0 / 1024 && accel[0].z == 10274.0 / 1024)
        #expect(abs(gyro[0].x - -656.0 / 4096 * .pi / 180) < 1e-15)
        // Held samples come out before the fix.
        let firstFix = try #require(events.firstIndex { if case .gnss(.fix) = $0 { true } else { false } })
        #expect(firstFix == 20 + 1)  // 10 accel + 10 gyro, the acquired transition, then the fix
    }

    @Test("ESF-MEAS alone gives samples, ms time tags")
    func measSamples() {
        func meas(_ tag: UInt32) -> [UInt8] {
            var p = Payload(count: 8 + 16)
            p.u32(0, tag)
            p.u16(4, 4 << 11)
            for (index, type) in [14, 13, 5, 12].enumerated() { p.u32(8 + 4 * index, UInt32(type) << 24 | 4096) }
            return frame(0x10, 0x02, p.bytes)
        }
        var stream = GNSSReceiverStream()
        let events = stream.push(navPVT() + frame(0x01, 0x61, [0x98, 0x8D, 0x12, 0x13]) + meas(5000) + meas(5100)) + stream.finish()
        let gyro = events.compactMap { if case .motion(.gyroscope, let s) = $0 { s } else { nil } }
        #expect(gyro.map(\.timestamp) == [1_622_047_965_000, 1_622_047_965_100])
        #expect(stream.stats.sensors.accelerometer == 0)
    }
}

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
