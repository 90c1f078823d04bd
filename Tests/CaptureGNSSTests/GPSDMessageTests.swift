import CaptureCore
import Testing

@testable import CaptureGNSS

@Suite struct GPSDMessageTests {
    @Test func sessionStartMessages() throws {
        // Lines as gpsd 3.22 sent them in the research notes' gpsfake runs.
        let version = try GPSDMessage(
            line: #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\r\n")
        #expect(version == .version(GPSDVersion(release: "3.22", revision: "3.22", protocolMajor: 3, protocolMinor: 14)))
        let devices = try GPSDMessage(
            line: #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","driver":"NMEA0183","activated":"2026-11-22T01:36:04.990Z","bps":4800}]}"#)
        #expect(devices == .devices([
            GPSDDevice(path: "/dev/pts/1", driver: "NMEA0183", subtype: nil, activated: "2026-11-22T01:36:04.990Z",
                       isDeactivated: false, bitsPerSecond: 4800),
        ]))
        #expect(try GPSDMessage(line: #"{"class":"DEVICES","devices":[]}"#) == .devices([]))
        let removed = try GPSDMessage(line: #"{"class":"DEVICE","path":"/dev/pts/1","activated":0}"#)
        guard case .device(let device) = removed else { Issue.record("not DEVICE"); return }
        #expect(device.isDeactivated && device.activated == nil && device.path == "/dev/pts/1")
        let watch = try GPSDMessage(line: #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"split24":false,"pps":false}"#)
        #expect(watch == .watch(GPSDWatch(enable: true, json: true, nmea: false, raw: 0, scaled: false, split24: false, pps: false, device: nil)))
        #expect(try GPSDMessage(line: #"{"class":"ERROR","message":"Unrecognized request 'FOO'"}"#) == .error(message: "Unrecognized request 'FOO'"))
        #expect(try GPSDMessage(line: #"{"class":"PPS","real_sec":1}"#) == .other(className: "PPS"))
    }

    @Test func tpvWithAllTheUsualFields() throws {
        let line = #"{"class":"TPV","status":2,"mode":3,"time":"2022-10-18T11:32:58.000Z","ept":0.005,"lat":32.648580000,"lon":-108.374110000,"altHAE":1552.8000,"altMSL":1577.4000,"alt":1577.4000,"epv":5.175,"track":247.1000,"magtrack":256.4000,"magvar":9.3,"speed":2.727,"geoidSep":-24.600,"eph":5.225,"sep":6.650}"#
        guard case .tpv(let tpv) = try GPSDMessage(line: line) else { Issue.record("not TPV"); return }
        #expect(tpv.mode == 3 && tpv.status == 2)
        #expect(tpv.timestamp == 1_666_092_778_000)
        #expect(tpv.time == "2022-10-18T11:32:58.000Z")
        #expect(tpv.latitude == 32.64858 && tpv.longitude == -108.37411)
        #expect(tpv.altitudeHAE == 1552.8 && tpv.altitudeMSL == 1577.4 && tpv.geoidSeparation == -24.6)
        #expect(tpv.eph == 5.225 && tpv.epv == 5.175 && tpv.ept == 0.005)
        #expect(tpv.speed == 2.727 && tpv.track == 247.1 && tpv.magneticVariation == 9.3)
        #expect(tpv.fix == Fix(timestamp: 1_666_092_778_000, latitude: 32.64858, longitude: -108.37411, altitude: 1552.8,
                               horizontalAccuracy: 5.225, verticalAccuracy: 5.175, speed: 2.727, course: 247.1, mode: .threeD))
    }

    @Test func minimalTPVsAndFallbacks() throws {
        guard case .tpv(let noFix) = try GPSDMessage(line: #"{"class":"TPV","mode":1}"#) else { Issue.record("not TPV"); return }
        #expect(noFix.mode == 1 && noFix.timestamp == nil && noFix.fix == nil)
        guard case .tpv(let bare) = try GPSDMessage(line: #"{"class":"TPV"}"#) else { Issue.record("not TPV"); return }
        #expect(bare.mode == nil && bare.fix == nil)
        let line = #"{"class":"TPV","mode":3,"time":"2020-07-11T22:37:46.000Z","lat":38.1,"lon":-122.6,"altMSL":83.0,"epx":1.0,"epy":3.164}"#
        guard case .tpv(let fallback) = try GPSDMessage(line: line) else { Issue.record("not TPV"); return }
        let fix = try #require(fallback.fix)
        #expect(fix.altitude == 83.0)  // no altHAE: altMSL
        #expect(fix.horizontalAccuracy == 3.164)  // no eph: max(epx, epy)
        #expect(fix.verticalAccuracy == nil && fix.speed == nil && fix.course == nil)
        // 2D without position: no fix.
        guard case .tpv(let noPosition) = try GPSDMessage(line: #"{"class":"TPV","mode":2,"time":"2020-07-11T22:37:46Z"}"#)
        else { Issue.record("not TPV"); return }
        #expect(noPosition.timestamp == 1_594_507_066_000 && noPosition.fix == nil)
        // Old daemons sent time as Unix seconds.
        guard case .tpv(let old) = try GPSDMessage(line: #"{"class":"TPV","mode":2,"time":1260372305.5,"lat":1,"lon":2}"#)
        else { Issue.record("not TPV"); return }
        #expect(old.timestamp == 1_260_372_305_500 && old.time == nil)
    }

    @Test func skyAndGST() throws {
        let sky = #"{"class":"SKY","hdop":1.10,"pdop":1.40,"vdop":0.90,"nSat":2,"uSat":1,"satellites":[{"PRN":2,"gnssid":0,"svid":2,"az":319.0,"el":60.0,"ss":36.0,"used":true},{"PRN":6,"az":64.0,"el":1.0,"ss":0.0,"used":false}]}"#
        guard case .sky(let report) = try GPSDMessage(line: sky) else { Issue.record("not SKY"); return }
        #expect(report.hdop == 1.1 && report.vdop == 0.9 && report.satellitesSeen == 2 && report.satellitesUsed == 1)
        #expect(report.satellites.map(\.prn) == [2, 6])
        #expect(report.satellites.map(\.used) == [true, false])
        #expect(report.satellites[0].gnssID == 0 && report.satellites[1].gnssID == nil)
        let gst = #"{"class":"GST","device":"/dev/pts/1","time":"2024-06-15T12:00:00.000Z","rms":2.100,"major":3.000,"minor":2.000,"orient":45.000,"lat":2.500,"lon":2.800,"alt":4.100}"#
        #expect(try GPSDMessage(line: gst) == .gst(GPSDGST(
            device: "/dev/pts/1", time: "2024-06-15T12:00:00.000Z", timestamp: 1_718_452_800_000, rms: 2.1, major: 3,
            minor: 2, orientation: 45, latitude: 2.5, longitude: 2.8, altitude: 4.1)))
    }

    @Test func badLinesAreTypedErrors() {
        #expect(throws: GPSDParseError.notJSON) { try GPSDMessage(line: "$GPGGA,113258,3238.9148,N*4D") }
        #expect(throws: GPSDParseError.notJSON) { try GPSDMessage(line: #"{"class":"TPV","#) }
        #expect(throws: GPSDParseError.notJSON) { try GPSDMessage(line: "") }
        #expect(throws: GPSDParseError.notAnObject) { try GPSDMessage(line: "[1,2]") }
        #expect(throws: GPSDParseError.missingClass) { try GPSDMessage(line: #"{"mode":3}"#) }
        #expect(throws: GPSDParseError.missingClass) { try GPSDMessage(line: #"{"class":3}"#) }
        #expect(throws: GPSDParseError.invalidField(className: "TPV", field: "lat")) {
            try GPSDMessage(line: #"{"class":"TPV","mode":3,"lat":"north"}"#)
        }
        #expect(throws: GPSDParseError.invalidField(className: "TPV", field: "mode")) {
            try GPSDMessage(line: #"{"class":"TPV","mode":2.5}"#)
        }
        #expect(throws: GPSDParseError.invalidField(className: "TPV", field: "time")) {
            try GPSDMessage(line: #"{"class":"TPV","mode":2,"time":"yesterday"}"#)
        }
        #expect(throws: GPSDParseError.invalidField(className: "SKY", field: "used")) {
            try GPSDMessage(line: #"{"class":"SKY","satellites":[{"PRN":1,"used":1}]}"#)
        }
        #expect(throws: GPSDParseError.invalidField(className: "SKY", field: "satellites")) {
            try GPSDMessage(line: #"{"class":"SKY","satellites":[1]}"#)
        }
    }

    @Test func isoTimes() {
        #expect(ISO8601Time.unixMilliseconds(iso8601: "1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601Time.unixMilliseconds(iso8601: "2022-09-11T19:15:03.010Z") == 1_662_923_703_010)
        #expect(ISO8601Time.unixMilliseconds(iso8601: "2022-09-11T19:15:03.0104Z") == 1_662_923_703_010)
        #expect(ISO8601Time.unixMilliseconds(iso8601: "2022-09-11T19:15:03.0105Z") == 1_662_923_703_011)
        #expect(ISO8601Time.unixMilliseconds(iso8601: "2022-09-11T19:15:03.5Z") == 1_662_923_703_500)
        #expect(ISO8601Time.unixMilliseconds(iso8601: "2022-09-11T19:15:03.123456789Z") == 1_662_923_703_123)
        for bad in ["", "2022-09-11", "2022-09-11T19:15:03", "2022-13-11T19:15:03Z", "2022-02-30T19:15:03Z",
                    "2022-09-11T24:00:00Z", "2022-09-11T19:15:03.Z", "2022-09-11T19:15:03.1xZ", "2022-09-11 19:15:03Z"] {
            #expect(ISO8601Time.unixMilliseconds(iso8601: bad) == nil, "\(bad)")
        }
    }

    @Test func watchCommand() {
        #expect(GPSDCommand.watch() == "?WATCH={\"enable\":true,\"json\":true}\n")
        #expect(GPSDCommand.watch(enable: false) == "?WATCH={\"enable\":false,\"json\":true}\n")
        #expect(GPSDCommand.watch(device: "/dev/tty\"x") == "?WATCH={\"enable\":true,\"json\":true,\"device\":\"/dev/tty\\\"x\"}\n")
        // A control character cannot end the command early: it is escaped as JSON requires.
        #expect(GPSDCommand.watch(device: "/dev/a\nb") == "?WATCH={\"enable\":true,\"json\":true,\"device\":\"/dev/a\\nb\"}\n")
    }
}

@Suite struct GPSDTPVMergerTests {
    private func tpv(_ json: String) throws -> GPSDTPV {
        guard case .tpv(let tpv) = try GPSDMessage(line: json) else { throw GPSDParseError.notJSON }
        return tpv
    }

    @Test func mergesTheReportsOfOneEpoch() throws {
        var merger = GPSDTPVMerger()
        var events: [GNSSEvent] = []
        // gpsd's three TPVs for one epoch (RMC → 2D, GGA → 3D, GSA → epv), then the next epoch.
        events += merger.add(try tpv(#"{"class":"TPV","mode":2,"time":"2024-06-15T12:00:00.000Z","lat":51.0504,"lon":13.7373,"track":0.0,"speed":5.000}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":3,"time":"2024-06-15T12:00:00.000Z","lat":51.0504,"lon":13.7373,"altHAE":166.9,"altMSL":120.0,"eph":17.1}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":3,"time":"2024-06-15T12:00:00.000Z","epv":29.9}"#))
        #expect(events.isEmpty)
        events += merger.add(try tpv(#"{"class":"TPV","mode":2,"time":"2024-06-15T12:00:01.000Z","lat":51.05044,"lon":13.7373}"#))
        #expect(events == [
            .transition(.acquired(at: 1_718_452_800_000)),
            .fix(Fix(timestamp: 1_718_452_800_000, latitude: 51.0504, longitude: 13.7373, altitude: 166.9,
                     horizontalAccuracy: 17.1, verticalAccuracy: 29.9, speed: 5.0, course: 0.0, mode: .threeD)),
        ])
        let last = merger.finish()
        #expect(last == [.fix(Fix(timestamp: 1_718_452_801_000, latitude: 51.05044, longitude: 13.7373, mode: .twoD))])
        #expect(merger.finish().isEmpty)
        #expect(merger.stats.reports == 4 && merger.stats.epochs == 2 && merger.stats.fixes == 2)
    }

    @Test func noFixEpochsAndLoss() throws {
        var merger = GPSDTPVMerger()
        var events: [GNSSEvent] = []
        events += merger.add(try tpv(#"{"class":"TPV","mode":1}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":3,"time":"2024-06-15T12:00:00Z","lat":1,"lon":2}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":1,"time":"2024-06-15T12:00:01Z"}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":1,"time":"2024-06-15T12:00:02Z"}"#))
        events += merger.finish()
        #expect(events == [
            .transition(.acquired(at: 1_718_452_800_000)),
            .fix(Fix(timestamp: 1_718_452_800_000, latitude: 1, longitude: 2, mode: .threeD)),
            .transition(.lost(at: 1_718_452_802_000, lastFix: 1_718_452_800_000)),
        ])
        #expect(merger.stats.reportsWithoutTime == 1)
        #expect(merger.stats.epochsWithoutFix == 2)
    }

    @Test("a no-fix TPV after gpsd reported a fix for the same time does not take the fix back")
    func noFixAfterFixOfTheSameTime() throws {
        var merger = GPSDTPVMerger()
        var events: [GNSSEvent] = []
        // gpsd on eXplorist210.log: GGA, RMC and GSA give 3D reports, then $PMGNST a mode-1 report
        // of the same time.
        events += merger.add(try tpv(#"{"class":"TPV","mode":3,"time":"2006-05-20T20:06:20.300Z","lat":53.22038,"lon":6.573713333}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":3,"time":"2006-05-20T20:06:20.300Z","epv":98.9}"#))
        events += merger.add(try tpv(#"{"class":"TPV","mode":1,"time":"2006-05-20T20:06:20.300Z"}"#))
        events += merger.finish()
        #expect(events.contains(.fix(Fix(timestamp: 1_148_155_580_300, latitude: 53.22038, longitude: 6.573713333, verticalAccuracy: 98.9, mode: .threeD))))
        #expect(merger.stats.noFixAfterFix == 1)
        // A mode-1 report that comes before any fix of its time still leaves the epoch without one.
        var early = GPSDTPVMerger()
        _ = early.add(try tpv(#"{"class":"TPV","mode":1,"time":"2006-05-20T20:06:20.300Z"}"#))
        #expect(fixes(early.finish()).isEmpty)
    }

    private func fixes(_ events: [GNSSEvent]) -> [Fix] {
        events.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
    }
}
