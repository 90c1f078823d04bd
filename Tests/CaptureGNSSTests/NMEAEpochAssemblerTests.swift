import CaptureCore
import CaptureGNSS
import CaptureIIO
import Testing

@Suite struct NMEAEpochAssemblerTests {
    /// Runs sealed sentences (bodies without `*hh`) through a stream; returns fixes, transitions, stats.
    private func run(_ bodies: [String], configuration: NMEAEpochAssembler.Configuration = .init())
        -> ([Fix], [FixTransition], NMEAStats)
    {
        var stream = NMEAStream(configuration: configuration)
        var events: [GNSSEvent] = []
        for body in bodies { events += stream.line(NMEAChecksum.seal(body) + "\r\n") }
        events += stream.finish()
        var fixes: [Fix] = []
        var transitions: [FixTransition] = []
        for event in events {
            switch event {
            case .fix(let fix): fixes.append(fix)
            case .transition(let transition): transitions.append(transition)
            }
        }
        return (fixes, transitions, stream.stats)
    }

    private func epoch(_ time: String, date: String = "150624", status: String = "A", quality: Int = 1) -> [String] {
        [
            "$GPGGA,\(time),5103.0240,N,01344.2380,E,\(quality),08,1.2,120.0,M,46.9,M,,",
            "$GPRMC,\(time),\(status),5103.0240,N,01344.2380,E,9.72,45.0,\(date),,",
            "$GPGSA,A,3,01,02,03,04,,,,,,,,,2.0,1.2,1.6",
        ]
    }

    @Test func oneFixPerEpochFromAllItsSentences() throws {
        let (fixes, transitions, stats) = run(epoch("120000.00") + epoch("120001.00"))
        #expect(fixes.count == 2)
        let fix = try #require(fixes.first)
        #expect(fix.timestamp == 1_718_452_800_000)  // 2024-06-15T12:00:00Z
        #expect(abs(fix.latitude - 51.0504) < 1e-12)
        #expect(abs(fix.longitude - 13.7373) < 1e-12)
        #expect(fix.altitude == 166.9)
        #expect(abs(fix.speed! - 5.0004) < 1e-4)  // 9.72 kn
        #expect(fix.course == 45.0)
        #expect(abs(fix.horizontalAccuracy! - 6.0) < 1e-12)  // HDOP 1.2 × 5 m
        #expect(abs(fix.verticalAccuracy! - 8.0) < 1e-12)  // VDOP 1.6 × 5 m
        #expect(fixes[1].timestamp == 1_718_452_801_000)
        #expect(transitions == [.acquired(at: 1_718_452_800_000)])
        #expect(stats.assembly.epochs == 2)
    }

    /// A Hemisphere receiver starting (gpsd's hemi.log): GGA quality 1 and a position, but 0
    /// satellites used, a valid VTG beside it. No fix until satellites are used; an RMC `A`
    /// beside such a GGA still makes one.
    @Test func aGGAWithNoSatellitesUsedIsNoFixUnlessAnRMCSaysSo() {
        func gga(_ time: String, _ used: String) -> [String] {
            [
                "$GPZDA,\(time),15,06,2024,00,00",
                "$GPGGA,\(time),4221.8237733,N,07101.9411707,W,1,\(used),3.3,10.835,M,-33.320,M,,",
                "$GPVTG,330.63,T,345.26,M,0.00,N,0.00,K,A",
            ]
        }
        let (fixes, _, _) = run(gga("120000.00", "00") + gga("120000.50", "00") + gga("120001.00", "04") + gga("120001.50", ""))
        #expect(fixes.map(\.timestamp) == [1_718_452_801_000, 1_718_452_801_500])
        let withRMC = gga("120002.00", "00") + ["$GPRMC,120002.00,A,4221.8237733,N,07101.9411707,W,0.0,330.6,150624,,"]
        #expect(run(withRMC).0.map(\.timestamp) == [1_718_452_802_000])
    }

    @Test func ggaBeforeTheFirstRMCStillGetsTheDate() {
        // GGA opens the epoch, RMC brings the date before the epoch closes.
        let (fixes, _, _) = run(epoch("120000.00"))
        #expect(fixes.map(\.timestamp) == [1_718_452_800_000])
    }

    @Test func noDateNoFix() {
        let bodies = [
            "$GPGGA,120000.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,",
            "$GPGGA,120001.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,",
        ]
        let (fixes, _, stats) = run(bodies + epoch("120002.00"))
        #expect(fixes.map(\.timestamp) == [1_718_452_802_000])
        #expect(stats.assembly.epochsWithoutDate == 2)
    }

    @Test func invalidStatusOrQualityGivesNoFix() {
        let (fixes, _, stats) = run(
            epoch("120000.00", status: "V") + epoch("120001.00", quality: 0)
                + ["$GPRMC,120002.00,A,5103.0240,N,01344.2380,E,0.0,,150624,,,N"]
                + ["$GPGGA,120003.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,", "$GPGSA,A,1,,,,,,,,,,,,,,,"]
                + ["$GPRMC,120004.00,A,,,,,0.0,,150624,,"])
        #expect(fixes.isEmpty)
        #expect(stats.assembly.epochsWithoutFix == 5)
    }

    @Test func timelessSentencesBeforeAnyEpochAreOrphans() {
        let (fixes, _, stats) = run(["$GPGSA,A,3,01,02,03,04,,,,,,,,,2.0,1.2,1.6", "$GPVTG,45.0,T,,M,9.72,N,18.0,K,A"] + epoch("120000"))
        #expect(fixes.count == 1)
        #expect(stats.assembly.orphanSentences == 2)
    }

    @Test func vtgSuppliesSpeedAndCourseWhenRMCHasNone() throws {
        let bodies = [
            "$GPRMC,120000.00,A,5103.0240,N,01344.2380,E,,,150624,,",
            "$GPVTG,90.0,T,,M,,N,36.0,K,A",
        ]
        let (fixes, _, _) = run(bodies)
        let fix = try #require(fixes.first)
        #expect(fix.speed == 10.0)
        #expect(fix.course == 90.0)
        #expect(fix.altitude == nil && fix.horizontalAccuracy == nil && fix.verticalAccuracy == nil)
    }

    @Test func gstWinsOverDOP() throws {
        let (fixes, _, _) = run(epoch("120000.00") + ["$GPGST,120000.00,1.0,2.0,1.0,0,3.0,4.0,6.5"])
        let fix = try #require(fixes.first)
        #expect(fix.horizontalAccuracy == 5.0)
        #expect(fix.verticalAccuracy == 6.5)
    }

    @Test func uereIsConfigurable() throws {
        let (fixes, _, _) = run(epoch("120000.00"), configuration: .init(uere: 2.0))
        #expect(abs(try #require(fixes.first).horizontalAccuracy! - 2.4) < 1e-12)
    }

    @Test func mslAltitudeIsTheFallbackWithoutGeoidSeparation() throws {
        let (fixes, _, _) = run([
            "$GPGGA,120000.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,,M,,",
            "$GPRMC,120000.00,A,5103.0240,N,01344.2380,E,0.0,,150624,,",
        ])
        #expect(try #require(fixes.first).altitude == 120.0)
    }

    @Test func dateAdvancesAtMidnightWithoutRMC() {
        let bodies = [
            "$GPRMC,235959.00,A,5103.0240,N,01344.2380,E,0.0,,311224,,",
            "$GPGGA,000000.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,",
        ]
        let (fixes, _, _) = run(bodies)
        // 2024-12-31T23:59:59Z, then 2025-01-01T00:00:00Z.
        #expect(fixes.map(\.timestamp) == [1_735_689_599_000, 1_735_689_600_000])
    }

    @Test func fixIsLostAfterTwoSecondsOfSentenceTime() {
        let bodies = epoch("120000") + epoch("120001", status: "V", quality: 0)
            + epoch("120002", status: "V", quality: 0) + epoch("120003", status: "V", quality: 0) + epoch("120004")
        let (fixes, transitions, _) = run(bodies)
        #expect(fixes.count == 2)
        #expect(transitions == [
            .acquired(at: 1_718_452_800_000),
            .lost(at: 1_718_452_802_000, lastFix: 1_718_452_800_000),
            .acquired(at: 1_718_452_804_000),
        ])
    }

    @Test func shortGapsAreNotALoss() {
        let bodies = epoch("120000") + epoch("120001", status: "V", quality: 0) + epoch("120001.5") + epoch("120003")
        let (_, transitions, _) = run(bodies)
        #expect(transitions == [.acquired(at: 1_718_452_800_000)])
    }

    @Test func trackerStateMachine() {
        var tracker = FixLossTracker(timeout: 2_000)
        #expect(tracker.noFix(at: 0) == nil)
        #expect(tracker.state == .searching)
        #expect(tracker.fix(at: 1_000) == .acquired(at: 1_000))
        #expect(tracker.fix(at: 2_000) == nil)
        #expect(tracker.state == .fixed(lastFix: 2_000))
        #expect(tracker.noFix(at: 3_999) == nil)
        #expect(tracker.noFix(at: 4_000) == .lost(at: 4_000, lastFix: 2_000))
        #expect(tracker.noFix(at: 9_000) == nil)
        #expect(tracker.state == .searching)
        #expect(tracker.fix(at: 10_000) == .acquired(at: 10_000))
    }
}

@Suite struct NMEARobustnessTests {
    @Test func zdaParsesAndDatesEpochsWithoutRMC() throws {
        guard case .zda(let zda) = try NMEAMessage(NMEASentence(validating: "$GNZDA,223745.00,11,07,2020,00,00*7A"))
        else { Issue.record("not ZDA"); return }
        #expect(zda.date == NMEADate(year: 2020, month: 7, day: 11))
        #expect(zda.localZoneMinutes == 0)
        #expect(zda.time?.millisecondsOfDay == (22 * 3600 + 37 * 60 + 45) * 1000)
        #expect(throws: NMEAParseError.invalidField(type: "ZDA", field: "date")) {
            try NMEAMessage(NMEASentence(validating: NMEAChecksum.seal("$GPZDA,120000,31,02,2020,,")))
        }
        var stream = NMEAStream()
        var events: [GNSSEvent] = []
        for body in ["$GPGGA,120000.00,5103.0240,N,01344.2380,E,1,08,1.2,120.0,M,46.9,M,,", "$GPZDA,120000.00,15,06,2024,-02,30"] {
            events += stream.line(NMEAChecksum.seal(body))
        }
        events += stream.finish()
        let fixes = events.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
        #expect(fixes.map(\.timestamp) == [1_718_452_800_000])
    }

    @Test func resynchronizesOnNoiseAndCutOffSentences() {
        var stream = NMEAStream()
        _ = stream.line("xx\u{1}$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D")
        _ = stream.line("$GPGSV,3,1,11,02$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D")
        _ = stream.line("$GPGSV,3,1,11,02$GPGSA,A,3,0")
        #expect(stream.stats.resynchronized == 3)
        #expect(stream.stats.decoded["GSA"] == 2)
        #expect(stream.stats.truncated == 1)
        #expect(stream.stats.assembly.orphanSentences == 2)
    }

    @Test func degenerateInputsDoNotTrap() throws {
        #expect(throws: NMEAFrameError.malformedAddress) { try NMEASentence(validating: "$*00") }
        var stream = NMEAStream()
        for line in ["$", "$*", "$*00", "!", "*", "$GP*", ",,,,", "$GPRMC,,,,,,,,,,,,,,,,,,,,,,,,,*", String(repeating: "$", count: 500)] {
            _ = stream.line(line)
        }
        _ = stream.push([0xFF, 0xFE, 0x00, 0x0A, 0x24, 0x0D])
        _ = stream.finish()
        #expect(stream.stats.assembly.fixes == 0)
        #expect(NMEADate(year: Int.min, month: 1, day: 1) == nil)
        var tracker = FixLossTracker()
        _ = tracker.fix(at: .min)
        #expect(tracker.noFix(at: .max) == .lost(at: .max, lastFix: .min))
        #expect(IIOUnits.unixMilliseconds(fromNanoseconds: .min) == Int64.min / 1_000_000 - 1)
        #expect(IIOSamplingFrequencies.list([]).nearest(to: 5) == nil)
    }
}
