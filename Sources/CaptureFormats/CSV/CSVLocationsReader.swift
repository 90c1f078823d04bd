package import CaptureCore
package import Foundation

/// Reads capture's CSV locations table, columns found by their header names.
///
/// `capture replay` reads a CSV file through it (`TraceInput`, in CaptureSensors); its writer,
/// ``CSVWriter``, is the CSV export's.
package enum CSVLocationsReader {
    /// The rows with their track and modality; throws a ``TraceError`` at the first line that
    /// does not fit the header.
    package static func read(_ data: Data) throws(TraceError) -> [(fix: Fix, track: Int, modality: Modality?)] {
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) else { return [] }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        guard let time = column("time_unix_ms"), let track = column("track"), let lat = column("latitude_deg"),
            let lon = column("longitude_deg")
        else {
            throw TraceError(line: 1, expected: "a header with time_unix_ms,track,latitude_deg,longitude_deg", found: "")
        }
        var rows: [(fix: Fix, track: Int, modality: Modality?)] = []
        for (index, line) in lines.dropFirst().enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            func value(_ name: String) -> String? {
                guard let at = column(name), at < fields.count, !fields[at].isEmpty else { return nil }
                return fields[at]
            }
            func number(_ name: String) -> Double? { value(name).flatMap(Double.init) }
            guard fields.count == header.count, let timestamp = Int64(fields[time]), let trackNumber = Int(fields[track]),
                let latitude = Double(fields[lat]), let longitude = Double(fields[lon]),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else {
                throw TraceError(
                    line: index + 2, expected: "\(header.count) fields: a time, track and position", found: String(line.prefix(40)))
            }
            let fix = Fix(
                timestamp: timestamp, latitude: latitude, longitude: longitude, altitude: number("altitude_m"),
                horizontalAccuracy: number("horizontal_accuracy_m"), verticalAccuracy: number("vertical_accuracy_m"),
                speed: number("speed_m_s"), course: number("course_deg"), satellites: value("satellites").flatMap { Int($0) },
                hdop: number("hdop"), vdop: number("vdop"), pdop: number("pdop"), mode: value("fix_mode").flatMap(FixMode.init(spelling:)))
            rows.append((fix, trackNumber, value("modality").flatMap(Modality.init(parsing:))))
        }
        return rows
    }
}
