import CaptureCore
import Testing

@testable import CaptureGNSS

@Suite struct NMEAMessageTests {
    private func message(_ line: String) throws -> NMEAMessage {
        try NMEAMessage(NMEASentence(validating: line))
    }

    @Test func rmcFromAGarmin15x() throws {
        guard case .rmc(let rmc) = try message("$GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E*6B")
        else { Issue.record("not RMC"); return }
        #expect(rmc.time == NMEATime(millisecondsOfDay: (11 * 3600 + 32 * 60 + 58) * 1000))
        #expect(rmc.isValid == true)
        #expect(abs(rmc.latitude! - (32 + 38.9148 / 60)) < 1e-12)
        #expect(abs(rmc.longitude! + (108 + 22.4466 / 60)) < 1e-12)
        #expect(rmc.speedKnots == 5.3)
        #expect(abs(rmc.speed! - 2.7266) < 1e-4)  // gpsd: "speed":2.727
        #expect(rmc.course == 247.1)
        #expect(rmc.date == NMEADate(year: 2022, month: 10, day: 18))
        #expect(rmc.magneticVariation == 9.3)
        #expect(rmc.mode == nil)
    }

    @Test func rmcWithEmptyFieldsAndNMEA41Extras() throws {
        guard case .rmc(let empty) = try message("$GPRMC,,V,,,,,,,,,,N*53") else { Issue.record("not RMC"); return }
        #expect(empty == NMEARMC(time: nil, isValid: false, latitude: nil, longitude: nil, speedKnots: nil, course: nil,
                                 date: nil, magneticVariation: nil, mode: "N"))
        guard case .rmc(let m9n) = try message("$GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V*0E")
        else { Issue.record("not RMC"); return }
        #expect(m9n.course == nil)
        #expect(m9n.mode == "D")
        #expect(m9n.time?.millisecondsOfDay == (22 * 3600 + 37 * 60 + 45) * 1000)
    }

    /// SiRF III (gpsd's motorola-t805.log): a variation with no direction, then the mode, eleven
    /// fields. Read as such; a Garmin's eleven fields ending in a direction stay a direction.
    @Test func rmcOfASiRFIIIWithoutTheVariationDirection() throws {
        guard case .rmc(let sirf) = try message("$GPRMC,212614.879,A,4839.9488,N,00214.8863,E,0.56,344.41,181207,0,A*77")
        else { Issue.record("not RMC"); return }
        #expect(sirf.isValid == true && sirf.mode == "A" && sirf.magneticVariation == 0)
        #expect(sirf.date == NMEADate(year: 2007, month: 12, day: 18))
        #expect(abs(sirf.latitude! - (48 + 39.9488 / 60)) < 1e-12)
        guard case .rmc(let noFix) = try message("$GPRMC,212607.891,V,,,,,,,181207,0,N*5C") else { Issue.record("not RMC"); return }
        #expect(noFix.isValid == false && noFix.mode == "N")
        #expect(throws: NMEAParseError.self) { try message("$GPRMC,212614.879,A,4839.9488,N,00214.8863,E,0.56,344.41,181207,0,X*6E") }
    }

    @Test func ggaGivesHeightAboveEllipsoid() throws {
        guard case .gga(let gga) = try message("$GPGGA,113258,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,*4D")
        else { Issue.record("not GGA"); return }
        #expect(gga.quality == 2)
        #expect(gga.satellitesUsed == 8)
        #expect(gga.hdop == 1.1)
        #expect(gga.altitudeMSL == 1577.4)
        #expect(gga.geoidSeparation == -24.6)
        #expect(abs(gga.altitudeHAE! - 1552.8) < 1e-9)  // gpsd: "altHAE":1552.8000
        #expect(gga.dgpsAge == nil)
        guard case .gga(let empty) = try message("$GPGGA,,,,,,0,,,,,,,,*66") else { Issue.record("not GGA"); return }
        #expect(empty.quality == 0)
        #expect(empty.latitude == nil && empty.time == nil && empty.altitudeHAE == nil)
        // Hemisphere letters without coordinates: no position, not a malformed sentence.
        guard case .gga(let letters) = try message(NMEAChecksum.seal("$GPGGA,120000,,N,,E,0,00,,,M,,M,,"))
        else { Issue.record("not GGA"); return }
        #expect(letters.latitude == nil && letters.longitude == nil && letters.quality == 0)
        #expect(throws: NMEAParseError.invalidField(type: "GGA", field: "latitude")) {
            try message(NMEAChecksum.seal("$GPGGA,120000,5103.0240,,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,"))
        }
    }

    @Test func ggaWithRTKPrecisionAndStation() throws {
        let line = "$GNGGA,133900.00,4134.50180323,N,09345.03586581,W,4,19,0.7,280.827,M,-31.442,M,6.0,0002*61"
        guard case .gga(let gga) = try message(line) else { Issue.record("not GGA"); return }
        #expect(gga.quality == 4)
        #expect(gga.time?.millisecondsOfDay == (13 * 3600 + 39 * 60) * 1000)
        #expect(abs(gga.latitude! - 41.575030053833) < 1e-11)
        #expect(gga.dgpsAge == 6.0)
        #expect(gga.dgpsStation == "0002")
    }

    @Test func gsaWithSystemID() throws {
        guard case .gsa(let gsa) = try message("$GNGSA,A,3,82,73,74,67,81,83,68,,,,,,0.99,0.54,0.83,2*08")
        else { Issue.record("not GSA"); return }
        #expect(gsa.selection == "A")
        #expect(gsa.fixMode == 3)
        #expect(gsa.satellites == [82, 73, 74, 67, 81, 83, 68])
        #expect(gsa.pdop == 0.99 && gsa.hdop == 0.54 && gsa.vdop == 0.83)
        #expect(gsa.systemID == 2)
        guard case .gsa(let old) = try message("$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D")
        else { Issue.record("not GSA"); return }
        #expect(old.systemID == nil)
        guard case .gsa(let noFix) = try message("$GPGSA,A,1,,,,,,,,,,,,,,,,*32") else { Issue.record("not GSA"); return }
        #expect(noFix.fixMode == 1 && noFix.satellites.isEmpty && noFix.pdop == nil)
    }

    @Test func gstSigmas() throws {
        guard case .gst(let gst) = try message("$GNGST,223745.00,228650,2.5,2.4,126,0.98,1.0,3.1*41")
        else { Issue.record("not GST"); return }
        #expect(gst.rms == 228650)
        #expect(gst.sigmaMajor == 2.5 && gst.sigmaMinor == 2.4 && gst.orientation == 126)
        #expect(gst.sigmaLatitude == 0.98 && gst.sigmaLongitude == 1.0 && gst.sigmaAltitude == 3.1)
    }

    @Test func vtgModernAndLegacy() throws {
        guard case .vtg(let vtg) = try message("$GPVTG,300.5,T,296.9,M,1.3,N,2.3,K,A*22") else { Issue.record("not VTG"); return }
        #expect(vtg.courseTrue == 300.5 && vtg.courseMagnetic == 296.9 && vtg.mode == "A")
        #expect(abs(vtg.speed! - 1.3 * 1852 / 3600) < 1e-12)
        guard case .vtg(let kmh) = try message(NMEAChecksum.seal("$GPVTG,,T,,M,,N,3.6,K,A")) else { Issue.record("not VTG"); return }
        #expect(kmh.speed == 1.0)
        guard case .vtg(let empty) = try message("$GPVTG,,T,,M,,N,,K,N*2C") else { Issue.record("not VTG"); return }
        #expect(empty.speed == nil && empty.mode == "N")
        guard case .vtg(let legacy) = try message(NMEAChecksum.seal("$GPVTG,054.7,034.4,005.5,010.2")) else {
            Issue.record("not VTG"); return
        }
        #expect(legacy.courseTrue == 54.7 && legacy.speedKnots == 5.5 && legacy.speedKilometersPerHour == 10.2)
    }

    @Test func gnsModes() throws {
        guard case .gns(let gns) = try message("$GNGNS,191503.01,3645.876324,N,03124.670280,E,AAN,08,1.3,-6.7,32.0,,,V*42")
        else { Issue.record("not GNS"); return }
        #expect(gns.modes == "AAN" && gns.hasFix)
        #expect(gns.satellitesUsed == 8 && gns.hdop == 1.3)
        #expect(abs(gns.altitudeHAE! - 25.3) < 1e-9)  // gpsd: "altHAE":25.3000
        #expect(gns.time?.millisecondsOfDay == (19 * 3600 + 15 * 60 + 3) * 1000 + 10)
        guard case .gns(let none) = try message("$GNGNS,191434.96,,,,,NNN,,,,,,*36") else { Issue.record("not GNS"); return }
        #expect(!none.hasFix && none.latitude == nil)
    }

    @Test func southAndEastAndRounding() throws {
        let line = NMEAChecksum.seal("$GPGGA,235959.9996,3345.5000,S,01520.2500,E,1,05,2.0,10.0,M,,M,,")
        guard case .gga(let gga) = try message(line) else { Issue.record("not GGA"); return }
        #expect(gga.latitude == -(33 + 45.5 / 60))
        #expect(gga.longitude == 15 + 20.25 / 60)
        #expect(gga.time?.millisecondsOfDay == 86_400_000)  // .9996 s rounds up to the next ms
        #expect(gga.geoidSeparation == nil && gga.altitudeHAE == nil)
    }

    @Test func malformedAndUnsupportedAreTypedErrors() throws {
        #expect(throws: NMEAParseError.unsupported(type: "GSV")) {
            try message("$GPGSV,3,3,11,06,01,064,00,13,09,132,00,15,10,164,00*41")
        }
        #expect(throws: NMEAParseError.unsupported(type: "PGRME")) { try message("$PGRME,7.6,M,41.7,M,42.4,M*2F") }
        #expect(throws: NMEAParseError.invalidField(type: "RMC", field: "latitude")) {
            try message(NMEAChecksum.seal("$GPRMC,113258,A,9238.9148,N,10822.4466,W,005.3,247.1,181022,,"))
        }
        #expect(throws: NMEAParseError.invalidField(type: "RMC", field: "status")) {
            try message(NMEAChecksum.seal("$GPRMC,113258,X,3238.9148,N,10822.4466,W,005.3,247.1,181022,,"))
        }
        #expect(throws: NMEAParseError.invalidField(type: "RMC", field: "date")) {
            try message(NMEAChecksum.seal("$GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,311322,,"))
        }
        #expect(throws: NMEAParseError.invalidField(type: "GGA", field: "time")) {
            try message(NMEAChecksum.seal("$GPGGA,256000,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,"))
        }
        #expect(throws: NMEAParseError.invalidField(type: "GGA", field: "longitude")) {
            try message(NMEAChecksum.seal("$GPGGA,113258,3238.9148,N,10822.4466,Q,2,08,1.1,1577.4,M,-24.6,M,,"))
        }
        #expect(throws: NMEAParseError.tooFewFields(type: "GGA", count: 3, needed: 9)) {
            try message(NMEAChecksum.seal("$GPGGA,113258,3238.9148,N"))
        }
    }

    @Test func datesAndUnixTime() throws {
        let date = try #require(NMEADate(parsingDDMMYY: "181022"))
        // 2022-10-18T11:32:58Z is 1 666 092 778 s after the Unix epoch.
        #expect(date.unixMilliseconds(at: NMEATime(millisecondsOfDay: 41_578_000)) == 1_666_092_778_000)
        #expect(NMEADate(parsingDDMMYY: "010100")?.daysSinceUnixEpoch == 10_957)  // 2000-01-01
        #expect(NMEADate(parsingDDMMYY: "010170")?.daysSinceUnixEpoch == 36_525)  // 2070-01-01, not 1970
        #expect(NMEADate(parsingDDMMYY: "060180")?.daysSinceUnixEpoch == 3_657)  // GPS epoch 1980-01-06
        #expect(NMEADate(parsingDDMMYY: "290224") != nil)
        #expect(NMEADate(parsingDDMMYY: "290223") == nil)
        #expect(NMEADate(year: 2024, month: 2, day: 29)?.next == NMEADate(year: 2024, month: 3, day: 1))
        #expect(NMEADate(year: 1999, month: 12, day: 31)?.next == NMEADate(year: 2000, month: 1, day: 1))
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = CivilDate.civil(fromDaysSinceUnixEpoch: days)
            #expect(CivilDate.daysSinceUnixEpoch(year: y, month: m, day: d) == days)
        }
    }
}
