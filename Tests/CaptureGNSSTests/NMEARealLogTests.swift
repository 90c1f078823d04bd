import CaptureCore
import CaptureGNSS
import CaptureTestSupport
import Foundation
import Testing

/// What gpsd decoded from the same log: the last TPV per `time`, read straight from the `.chk`
/// file with JSONSerialization (independent of the code under test).
struct GPSDOracleTPV {
    var time: Int64
    var mode: Int
    var lat: Double?
    var lon: Double?
    var speed: Double?
    var altHAE: Double?

    static func load(_ name: String) throws -> [Int64: GPSDOracleTPV] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var result: [Int64: GPSDOracleTPV] = [:]
        for line in try SharedData.lines(name) where line.hasPrefix("{") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["class"] as? String == "TPV", let timeText = object["time"] as? String,
                let date = formatter.date(from: timeText)
            else { continue }
            let time = Int64((date.timeIntervalSince1970 * 1000).rounded())
            result[time] = GPSDOracleTPV(
                time: time, mode: object["mode"] as? Int ?? 0, lat: object["lat"] as? Double,
                lon: object["lon"] as? Double, speed: object["speed"] as? Double, altHAE: object["altHAE"] as? Double)
        }
        return result
    }
}

@Suite(SharedData.required)
struct NMEARealLogTests {
    struct Outcome {
        var fixes: [Fix] = []
        var transitions: [FixTransition] = []
        var stats = NMEAStats()
    }

    static func run(_ name: String, chunk: Int = 61) throws -> Outcome {
        let bytes = try SharedData.bytes(name)
        var stream = NMEAStream()
        var outcome = Outcome()
        var events: [GNSSEvent] = []
        // Odd chunk sizes split sentences and CR LF pairs, as tty reads do.
        var start = 0
        while start < bytes.count {
            events += stream.push(bytes[start..<min(start + chunk, bytes.count)])
            start += chunk
        }
        events += stream.finish()
        for event in events {
            switch event {
            case .fix(let fix): outcome.fixes.append(fix)
            case .transition(let transition): outcome.transitions.append(transition)
            }
        }
        outcome.stats = stream.stats
        return outcome
    }

    /// For each real log, every fix we assemble has a gpsd TPV (mode ≥ 2) at the same time and
    /// vice versa; positions agree to 1e-6° and speeds to gpsd's printed precision (3 decimals).
    /// Heights above the ellipsoid agree too (both are GGA altitude + geoid separation).
    ///
    /// Not compared, because they are computed differently on purpose:
    /// - accuracies: gpsd turns DOPs into `eph`/`epv` with its own error model and fills
    ///   `epx`/`epy` from GST/GBS with its own scaling; we use GST σ directly or DOP × 5 m.
    /// - mode 2D/3D: a ``Fix`` has no mode; a 2D fix simply has no altitude.
    /// - course when RMC leaves it empty (the u-blox log at walking speed): gpsd sends no `track`
    ///   either, so there is nothing to compare.
    @Test(arguments: [
        ("quectel-eg25-g.log", 23, 60), ("ublox-neo-m9n-nmea.log", 61, 61), ("garmin15x.log", 7, 7),
        ("nmea-fuzzy-cases.log", 14, 14),
    ])
    func fixesMatchGPSDsDecoding(name: String, expectedFixes: Int, expectedEpochs: Int) throws {
        let outcome = try Self.run(name)
        let oracle = try GPSDOracleTPV.load(name + ".chk")
        let oracleFixTimes = Set(oracle.values.filter { $0.mode >= 2 }.map(\.time))
        #expect(outcome.fixes.count == expectedFixes)
        #expect(outcome.stats.assembly.epochs == expectedEpochs)
        #expect(Set(outcome.fixes.map(\.timestamp)) == oracleFixTimes)
        #expect(outcome.stats.rejected == 0)
        for fix in outcome.fixes {
            let tpv = try #require(oracle[fix.timestamp])
            #expect(abs(try #require(tpv.lat) - fix.latitude) <= 1e-6, "latitude at \(fix.timestamp)")
            #expect(abs(try #require(tpv.lon) - fix.longitude) <= 1e-6, "longitude at \(fix.timestamp)")
            if let speed = tpv.speed {
                #expect(abs(speed - (try #require(fix.speed))) <= 6e-4, "speed at \(fix.timestamp)")
            }
            if let altHAE = tpv.altHAE {
                #expect(abs(altHAE - (try #require(fix.altitude))) <= 1e-3, "altitude at \(fix.timestamp)")
            }
            #expect(fix.horizontalAccuracy != nil)
        }
    }

    @Test func quectelLosesAndRegainsItsFix() throws {
        let outcome = try Self.run("quectel-eg25-g.log")
        // 19:15:03.010 first fix; after 19:15:16.980 the module reports no fix (GGA quality 0,
        // RMC V) until 19:15:25.980. The loss is noticed at the first fix-less epoch ≥ 2 s later.
        #expect(outcome.transitions == [
            .acquired(at: 1_662_923_703_010),
            .lost(at: 1_662_923_719_000, lastFix: 1_662_923_716_980),
            .acquired(at: 1_662_923_725_980),
        ])
        #expect(outcome.stats.decoded == ["RMC": 60, "GGA": 60, "GNS": 60, "VTG": 60, "GSA": 162])
        #expect(outcome.stats.unsupported == ["GSV": 313, "PQGSV": 146])
        #expect(outcome.stats.comments == 8)
    }

    @Test func ubloxUsesGSTForAccuracy() throws {
        let outcome = try Self.run("ublox-neo-m9n-nmea.log")
        let first = try #require(outcome.fixes.first)
        // $GNGST,223745.00,228650,2.5,2.4,126,0.98,1.0,3.1
        #expect(abs(first.horizontalAccuracy! - (0.98 * 0.98 + 1.0 * 1.0).squareRoot()) < 1e-12)
        #expect(first.verticalAccuracy == 3.1)
        #expect(first.timestamp == 1_594_507_065_000)  // 2020-07-11T22:37:45Z
        #expect(outcome.stats.decoded["GST"] == 61)
        #expect(outcome.stats.decoded["GSA"] == 244)
    }

    @Test func garminUsesHDOPForAccuracy() throws {
        let outcome = try Self.run("garmin15x.log")
        let first = try #require(outcome.fixes.first)
        // No GST: HDOP 1.1 (GGA) × 5 m, VDOP 0.9 (GSA) × 5 m.
        #expect(abs(first.horizontalAccuracy! - 5.5) < 1e-12)
        #expect(abs(first.verticalAccuracy! - 4.5) < 1e-12)
        #expect(first.course == 247.1)
        #expect(outcome.stats.unsupported == ["GSV": 21, "PGRME": 7, "PGRMV": 7, "PGRMT": 1])
    }

    @Test func fuzzyCasesSurviveWithCounts() throws {
        let outcome = try Self.run("nmea-fuzzy-cases.log")
        #expect(outcome.stats.decoded == ["GGA": 14, "RMC": 14])
        #expect(outcome.stats.overlongAccepted == 28)  // every Trimble sentence is over 82 bytes
        #expect(outcome.stats.comments == 8)
        // In strict mode all of them are rejected, and nothing else breaks.
        var strict = NMEAStream(framing: .strict)
        _ = strict.push(try SharedData.bytes("nmea-fuzzy-cases.log"))
        _ = strict.finish()
        #expect(strict.stats.badFraming == 28)
        #expect(strict.stats.assembly.fixes == 0)
    }

    @Test func damagedCopyOfARealLogGivesTheSameFixes() throws {
        let clean = try Self.run("garmin15x.log")
        var damaged: [String] = []
        for (number, line) in try SharedData.lines("garmin15x.log").enumerated() {
            damaged.append(line)
            switch number % 5 {
            case 0: damaged.append("$GPGSV,3,1,11,02,60,319,36,05")  // truncated
            case 1: damaged.append("$GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E*6C")  // bad checksum
            case 2: damaged.append("\u{1}\u{2}garbage")  // line noise
            case 3: damaged.append(NMEAChecksum.seal("$GPGGA,1132xx,3238.9148,N,10822.4466,W,2,08"))  // malformed
            default: damaged.append(NMEAChecksum.seal("$GPXYZ,1,2,3"))  // unknown type
            }
        }
        var stream = NMEAStream()
        var events: [GNSSEvent] = []
        for line in damaged { events += stream.push(Array((line + "\r\n").utf8)) }
        events += stream.finish()
        let fixes = events.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
        #expect(fixes == clean.fixes)
        let stats = stream.stats
        #expect(stats.truncated == clean.stats.truncated + 14)
        #expect(stats.badChecksum == 13)
        #expect(stats.notNMEA == 13)
        #expect(stats.malformed == ["GGA": 13])
        #expect(stats.unsupported["XYZ"] == 13)
    }
}
