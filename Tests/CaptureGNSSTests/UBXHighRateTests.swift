import CaptureCore
import CaptureGNSS
import Testing

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
