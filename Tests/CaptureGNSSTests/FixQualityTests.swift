import CaptureCore
import CaptureGNSS
import Testing

/// Satellites used, HDOP, VDOP, PDOP and 2D/3D reach the ``Fix`` from every GNSS path and survive
/// the native trace format.
@Suite struct FixQualityTests {
    private func fixes(_ events: [GNSSEvent]) -> [Fix] {
        events.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
    }

    private func fixes(_ events: [ReceiverEvent]) -> [Fix] {
        events.compactMap { if case .gnss(.fix(let fix)) = $0 { fix } else { nil } }
    }

    /// The first fix an ``NMEAStream`` makes of `sentences` (given without their checksum), each
    /// sent with `ending`.
    private func firstFix(nmea sentences: [String], ending: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Fix {
        var stream = NMEAStream()
        var events: [GNSSEvent] = []
        for body in sentences {
            events += stream.line(NMEAChecksum.seal(body) + ending)
        }
        events += stream.finish()
        return try #require(fixes(events).first, sourceLocation: sourceLocation)
    }

    /// What a ``TraceParser`` makes of a trace of `line` (without its newline) after the magic line.
    private func parse(_ line: String) throws(TraceError) -> [TraceRecord] {
        var parser = TraceParser()
        var records: [TraceRecord] = []
        for (index, body) in [TraceFormat.magic, line].enumerated() {
            let bytes = Array(body.utf8)
            if let record = try bytes.withUnsafeBufferPointer({ buffer throws(TraceError) in
                try parser.parse(line: buffer, number: index + 1)
            }) {
                records.append(record)
            }
        }
        return records
    }

    @Test func nmeaTakesSatellitesFromGGAAndDOPsAndModeFromGSA() throws {
        let fix = try firstFix(
            nmea: [
                "$GPGGA,120000.00,5103.0240,N,01344.2380,E,1,07,1.3,120.0,M,46.9,M,,",
                "$GPRMC,120000.00,A,5103.0240,N,01344.2380,E,9.72,45.0,150624,,",
                "$GPGSA,A,2,01,02,03,,,,,,,,,,2.4,1.3,2.0",
                "$GLGSA,A,3,65,66,,,,,,,,,,,2.4,1.3,2.0",
            ], ending: "\r\n")
        #expect(fix.satellites == 7)
        #expect(fix.hdop == 1.3)
        #expect(fix.vdop == 2.0)
        #expect(fix.pdop == 2.4)
        #expect(fix.mode == .threeD)  // the best of the constellations' GSA modes
    }

    @Test func nmeaWithoutGSAHasNoModeAndCountsNothingItWasNotTold() throws {
        let fix = try firstFix(nmea: ["$GPRMC,120000.00,A,5103.0240,N,01344.2380,E,9.72,45.0,150624,,"], ending: "\n")
        #expect(!fix.hasQuality)
    }

    @Test func nmeaSatellitesFallBackToTheGSAList() throws {
        let fix = try firstFix(
            nmea: ["$GPRMC,120000.00,A,5103.0240,N,01344.2380,E,9.72,45.0,150624,,", "$GPGSA,A,2,01,02,03,,,,,,,,,,2.4,1.3,2.0"],
            ending: "\n")
        #expect(fix.satellites == 3)
        #expect(fix.mode == .twoD)
    }

    @Test func gpsdTakesSatellitesAndDOPsFromSKYAndTheModeFromTPV() throws {
        var stream = GPSDStream()
        var events: [ReceiverEvent] = []
        events += stream.line(#"{"class":"TPV","mode":3,"time":"2024-06-15T12:00:00.000Z","lat":51.0504,"lon":13.7373}"#)
        events += stream.line(
            #"{"class":"SKY","hdop":1.10,"pdop":1.40,"vdop":0.90,"satellites":[{"PRN":2,"used":true},{"PRN":5,"used":true},{"PRN":6,"used":false}]}"#)
        events += stream.line(#"{"class":"TPV","mode":2,"time":"2024-06-15T12:00:01.000Z","lat":51.0505,"lon":13.7373}"#)
        events += stream.line(#"{"class":"SKY","uSat":4,"hdop":2.5}"#)
        events += stream.finish()
        let all = fixes(events)
        #expect(all.count == 2)
        #expect(all[0].satellites == 2)  // no uSat: the satellites marked used
        #expect(all[0].hdop == 1.1 && all[0].vdop == 0.9 && all[0].pdop == 1.4)
        #expect(all[0].mode == .threeD)
        #expect(all[1].satellites == 4 && all[1].hdop == 2.5 && all[1].vdop == nil)
        #expect(all[1].mode == .twoD)
    }

    @Test func theTraceFormatKeepsTheQualityAndOldLinesStillParse() throws {
        let full = Fix(
            timestamp: 1_781_424_000_000, latitude: 52.5, longitude: 13.4, altitude: 30, horizontalAccuracy: 4,
            satellites: 9, hdop: 0.9, vdop: nil, pdop: 1.7, mode: .threeD)
        let line = TraceWriter.line(.sample(.fix(full)))
        #expect(line == "fix 1781424000000 52.5 13.4 30.0 4.0 - - - 9 0.9 - 1.7 3d\n")
        let plain = Fix(timestamp: 1_781_424_000_000, latitude: 52.5, longitude: 13.4)
        #expect(TraceWriter.line(.sample(.fix(plain))) == "fix 1781424000000 52.5 13.4 - - - - -\n")
        for (fix, text) in [(full, line), (plain, TraceWriter.line(.sample(.fix(plain))))] {
            #expect(try parse(String(text.dropLast())) == [.sample(.fix(fix))])
        }
    }

    @Test(arguments: ["fix 1 1 1 - - - - - 9.5 - - - -", "fix 1 1 1 - - - - - 9 - - - 4d", "fix 1 1 1 - - - - - 9 1 1 1 3d extra"])
    func badQualityFieldsAreTraceErrors(_ bad: String) {
        #expect(throws: TraceError.self, "\(bad) was accepted") { try parse(bad) }
    }
}

/// Issue 13.4: an NMEA epoch is emitted as soon as its last sentence arrives, once the receiver's
/// order is known (after the first epoch closed by the next one's time).
@Suite struct NMEANoLateFixTests {
    private func epoch(_ time: String) -> [String] {
        [
            "$GPRMC,\(time),A,5103.0240,N,01344.2380,E,9.72,45.0,150624,,",
            "$GPGGA,\(time),5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,",
            "$GPGSA,A,3,01,02,03,04,,,,,,,,,2.0,1.2,1.6",
            "$GLGSA,A,3,65,66,,,,,,,,,,,2.0,1.2,1.6",
        ]
    }

    @Test func theEpochClosesOnItsLastSentenceFromTheSecondEpochOn() {
        var stream = NMEAStream()
        var emitted: [(sentence: Int, timestamp: Int64)] = []
        let sentences = epoch("120000.00") + epoch("120001.00") + epoch("120002.00")
        for (index, body) in sentences.enumerated() {
            for case .fix(let fix) in stream.line(NMEAChecksum.seal(body) + "\r\n") {
                emitted.append((index, fix.timestamp))
            }
        }
        // Epoch 1 closes when epoch 2 starts (sentence 4); epochs 2 and 3 on their own last GSA.
        #expect(emitted.map(\.sentence) == [4, 7, 11])
        #expect(emitted.map(\.timestamp) == [1_718_452_800_000, 1_718_452_801_000, 1_718_452_802_000])
        #expect(stream.finish().isEmpty)
        #expect(stream.stats.assembly.closedOnLastSentence == 2)
        #expect(stream.stats.assembly.fixes == 3)
    }

    @Test func aSentenceAfterAnEarlyCloseIsLateAndTheOrderIsRelearned() {
        var stream = NMEAStream()
        var fixes = 0
        let changed = [
            "$GPRMC,120002.00,A,5103.0240,N,01344.2380,E,9.72,45.0,150624,,",
            "$GPGGA,120002.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,",
            "$GPGSA,A,3,01,02,03,04,,,,,,,,,2.0,1.2,1.6",
            "$GLGSA,A,3,65,66,,,,,,,,,,,2.0,1.2,1.6",
            "$GPGGA,120002.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,",  // late
        ]
        for body in epoch("120000.00") + epoch("120001.00") + changed + epoch("120003.00") {
            for case .fix in stream.line(NMEAChecksum.seal(body) + "\n") { fixes += 1 }
        }
        for case .fix in stream.finish() { fixes += 1 }
        #expect(fixes == 4)
        #expect(stream.stats.assembly.late == 1)
    }
}
