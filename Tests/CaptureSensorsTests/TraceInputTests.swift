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
            #expect(matched > 0 && matched * 10 >= result.count * 8, "\(log): \(matched) of \(result.count) fixes at gpsd's times")
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
