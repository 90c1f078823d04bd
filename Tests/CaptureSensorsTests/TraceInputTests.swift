import CaptureCore
import CaptureSensors
import CaptureTestSupport
import Foundation
import Testing

@Suite("Replay inputs detected by content")
struct TraceInputTests {
    func fixes(_ path: String) throws -> [Fix] {
        var fixes: [Fix] = []
        try TraceInput(path: path).forEachRecord { record, _ in
            if case .sample(.fix(let fix)) = record { fixes.append(fix) }
        }
        return fixes
    }

    func temporary(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-input-\(UUID().uuidString)").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test func detection() {
        #expect(TraceInput.detect(Data("#capture-trace v1\nacc 1 0 0 0\n".utf8)) == .native)
        #expect(TraceInput.detect(Data("# Name: x\n# Date: y\n$GPRMC,...\n".utf8)) == .nmea)
        #expect(TraceInput.detect(Data("{\"class\":\"VERSION\"}\n".utf8)) == .gpsdJSON)
        #expect(TraceInput.detect(Data("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">".utf8)) == .gpx)
        #expect(TraceInput.detect(Data("\u{FEFF}<gpx>".utf8)) == .gpx)
        #expect(TraceInput.detect(Data("hello\n".utf8)) == .native)
        // Comments with CRLF, then line noise before the first sentence (ublox-8.log).
        let noisy = "# Name: x\r\n#\r\n\u{7F}&\t\u{1}" + GNSSSourceTests.withChecksum("$GNVTG,,T,,M,0.029,N,0.053,K,A*") + "\r\n"
        #expect(TraceInput.detect(Data(noisy.utf8)) == .nmea)
        // Comments, then UBX binary (a NAV-EOE frame).
        let ubx = Data("# Name: y\n\n".utf8) + Data([0xB5, 0x62, 0x01, 0x61, 0x04, 0x00, 1, 2, 3, 4, 0x70, 0xDB])
        #expect(TraceInput.detect(ubx) == .nmea)
        // Binary without a valid frame or sentence is not taken for a receiver log.
        #expect(TraceInput.detect(Data([0x23, 0x0A, 0xB5, 0x62, 0x01, 0x61, 0x04, 0x00, 1, 2, 3, 4, 0, 0])) == .native)
    }

    @Test("the whole first part of a log decides: RTCM 3 before UBX, gpsd's preamble before NMEA or RTCM 3")
    func detectionBeyondTheFirstFrames() {
        // A real RTCM 3 message 1230 from the ZED-F9T log, 14 bytes with its CRC-24Q.
        let rtcm: [UInt8] = [0xD3, 0x00, 0x08, 0x4C, 0xE0, 0x00, 0x8A, 0x00, 0x00, 0x00, 0x00, 0xA8, 0xF7, 0x2A]
        let eoe: [UInt8] = [0xB5, 0x62, 0x01, 0x61, 0x04, 0x00, 1, 2, 3, 4, 0x70, 0xDB]
        let corrections = Array((0..<600).map { _ in rtcm }.joined())  // 8.4 kB, seconds of a base station's output
        let comments = Data("# Name: z\n".utf8)
        // RTCM 3 first, the first UBX frame past 8 kB: a receiver log.
        #expect(TraceInput.detect(comments + Data(corrections + eoe)) == .nmea)
        // RTCM 3 alone is a receiver's output too (replay then says it has no fix).
        #expect(TraceInput.detect(comments + Data(corrections)) == .nmea)
        // A damaged copy of the same is no receiver output.
        #expect(TraceInput.detect(comments + Data(corrections.map { $0 == 0xD3 ? 0xD2 : $0 })) == .native)
        // gpsd's preamble (`gpspipe -R`), then RTCM 3 and UBX; then an NMEA receiver's sentences.
        let preamble = Data("{\"class\":\"VERSION\",\"release\":\"3.22\"}\r\n{\"class\":\"WATCH\",\"raw\":2}\r\n".utf8)
        #expect(TraceInput.detect(preamble + Data(corrections + eoe)) == .nmea)
        let sentence = GNSSSourceTests.withChecksum("$GNVTG,,T,,M,0.029,N,0.053,K,A*") + "\r\n"
        #expect(TraceInput.detect(preamble + Data(sentence.utf8)) == .nmea)
        // A file read by replay: 6 kB of binary that is neither UBX nor RTCM 3, then UBX. The first
        // part of the file that decides is more than 4 KiB.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-input-\(UUID().uuidString)").path
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: comments + Data([UInt8](repeating: 0x55, count: 6_000) + eoe)))
        #expect((try? TraceInput(path: path))?.format == .nmea)
        // gpsd's JSON with reports and the NMEA gpsd echoes (`gpspipe -w -r`) stays gpsd JSON.
        for report in ["{\"class\":\"TPV\",\"mode\":1}\n", "{\"class\":\"IMU\",\"msg\":\"UBX-ESF-RAW\"}\n"] {
            #expect(TraceInput.detect(preamble + Data(report.utf8) + Data(sentence.utf8)) == .gpsdJSON)
            #expect(TraceInput.detect(preamble + Data(report.utf8)) == .gpsdJSON)
        }
    }

    @Test("GPX 1.1: points with times become fixes, untimed points are skipped")
    func gpx() throws {
        let path = try temporary("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>ride</name><trkseg>
                <trkpt lat="51.0504" lon="13.7373"><ele>112.5</ele><time>2026-06-14T08:00:00Z</time></trkpt>
                <trkpt lat="51.0505" lon="13.7375"><ele>113</ele><time>2026-06-14T08:00:01.500Z</time></trkpt>
                <trkpt lat="51.0506" lon="13.7376"></trkpt>
              </trkseg></trk>
            </gpx>
            """)
        defer { unlink(path) }
        let result = try fixes(path)
        #expect(result.count == 2)
        #expect(result.first == Fix(timestamp: 1_781_424_000_000, latitude: 51.0504, longitude: 13.7373, altitude: 112.5))
        #expect(result.last?.timestamp == 1_781_424_001_500)
    }

    @Test("broken GPX is a malformed-file error")
    func brokenGPX() throws {
        let path = try temporary("<gpx version=\"1.1\"><trk><trkpt lat=\"1\" lon=\"2\"></trk>")
        defer { unlink(path) }
        #expect(throws: TraceFileError.self) { try fixes(path) }
    }

    @Test("NMEA logs (gpsd test-log style) match gpsd's positions in their .chk", SharedData.required)
    func nmeaLogs() throws {
        #expect(!SharedData.logs.isEmpty)
        for log in SharedData.logs {
            let input = try TraceInput(path: SharedData.path(log))
            #expect(input.format == .nmea, "\(log)")
            let oracle = try SharedData.oracle(log)
            let result = try fixes(SharedData.path(log))
            var matched = 0
            for fix in result {
                guard let expected = oracle[fix.timestamp] else { continue }
                matched += 1
                #expect(abs(fix.latitude - expected.lat) < 1e-6 && abs(fix.longitude - expected.lon) < 1e-6, "\(log) at \(fix.timestamp)")
            }
            // At least 80 % at gpsd's times, or all but 2 (the tolerance; the NEO-M8U log
            // has 3 epochs, and gpsd reports no fix for the first).
            #expect(
                matched > 0 && (matched * 10 >= result.count * 8 || result.count - matched <= 2),
                "\(log): \(matched) of \(result.count) fixes at gpsd's times")
        }
    }

    @Test("gpsd JSON logs (gpspipe -w style: the JSON lines of the .chk files, in a temporary file) give gpsd's own positions", SharedData.required)
    func gpsdJSONLogs() throws {
        for log in SharedData.logs {
            let chk = try String(contentsOfFile: SharedData.path(log + ".chk"), encoding: .utf8)
            let json = chk.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }.joined(separator: "\n") + "\n"
            let path = try temporary(json)
            defer { unlink(path) }
            #expect(try TraceInput(path: path).format == .gpsdJSON, "\(log).chk")
            let oracle = try SharedData.oracle(log)
            let result = try fixes(path)
            #expect(result.count == oracle.count, "\(log).chk")
            for fix in result {
                let expected = try #require(oracle[fix.timestamp], "\(log).chk at \(fix.timestamp)")
                #expect(fix.latitude == expected.lat && fix.longitude == expected.lon, "\(log).chk at \(fix.timestamp)")
            }
        }
    }
}

extension SharedData {
    /// gpsd's positions from a `.chk` file (mode ≥ 2 TPVs), by Unix ms, read with
    /// JSONSerialization independently of the code under test.
    static func oracle(_ log: String) throws -> [Int64: (lat: Double, lon: Double)] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var result: [Int64: (Double, Double)] = [:]
        let text = try String(contentsOfFile: path(log + ".chk"), encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["class"] as? String == "TPV", (object["mode"] as? Int ?? 0) >= 2,
                let timeText = object["time"] as? String, let date = formatter.date(from: timeText),
                let lat = object["lat"] as? Double, let lon = object["lon"] as? Double
            else { continue }
            result[Int64((date.timeIntervalSince1970 * 1000).rounded())] = (lat, lon)
        }
        return result
    }
}
