import Foundation
import Testing

/// gpsd's real receiver logs, read in place from `<repo>/../shared/data/gpsd` (never copied).
enum SharedData {
    static let gpsdDirectory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data/gpsd").path

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: gpsdDirectory + "/garmin15x.log") }

    static let absentReason: Comment = "shared/data/gpsd absent: real receiver logs are not available"

    static func path(_ name: String) -> String { gpsdDirectory + "/" + name }

    /// The NMEA logs that have a `.chk`.
    static var logs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: gpsdDirectory)) ?? [])
            .filter { $0.hasSuffix(".log") && FileManager.default.fileExists(atPath: gpsdDirectory + "/" + $0 + ".chk") }
            .sorted()
    }

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
