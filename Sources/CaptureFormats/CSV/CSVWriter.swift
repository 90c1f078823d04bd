package import CaptureCore
import Foundation

/// Writes the CSV export's tables: a header line, then one line per sample in SI units (motion
/// in m/s², rad/s or µT, pressure in Pa, locations in degrees, m and m/s with the fix quality
/// and the modality), times in Unix milliseconds. ``CSVLocationsReader`` reads the locations
/// table back.
package enum CSVWriter {
    /// A CSV field, quoted when it holds a comma, quote or line break.
    package static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The header of a motion sensor's table.
    package static func header(of sensor: MotionSensor) -> String {
        let unit =
            switch sensor {
            case .accelerometer: "m_s2"
            case .gyroscope: "rad_s"
            case .magnetometer: "uT"
            }
        return "time_unix_ms,track,x_\(unit),y_\(unit),z_\(unit)\n"
    }

    /// Appends one motion sample's line to `lines` (a batch's lines are written at once).
    package static func append(_ sample: MotionSample, track: Int, to lines: inout String) {
        lines += "\(sample.timestamp),\(track),\(sample.x),\(sample.y),\(sample.z)\n"
    }

    /// The header of the pressure table.
    package static let pressureHeader = "time_unix_ms,pressure_pa\n"

    /// One pressure sample's line, in Pa.
    package static func line(_ sample: PressureSample) -> String {
        "\(sample.timestamp),\(TextFormat.decimal(sample.hectopascals * 100, 2))\n"
    }

    /// The header of the locations table (the columns ``CSVLocationsReader`` finds by name).
    package static let locationsHeader =
        "time_unix_ms,track,latitude_deg,longitude_deg,altitude_m,horizontal_accuracy_m,vertical_accuracy_m,speed_m_s,course_deg,"
        + "satellites,hdop,vdop,pdop,fix_mode,modality\n"

    /// The markers table's header.
    package static let markersHeader = "time_unix_ms,latitude_deg,longitude_deg,source\n"

    /// One marker's line; the place empty where no fix gave one.
    package static func line(_ marker: Marker) -> String {
        "\(marker.time),\(marker.latitude.map { "\($0)" } ?? ""),\(marker.longitude.map { "\($0)" } ?? ""),\(field(marker.source))\n"
    }

    /// One fix's line, with its track and the modality at its time.
    package static func line(_ fix: Fix, track: Int, modality: String) -> String {
        func optional(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
        return "\(fix.timestamp),\(track),\(fix.latitude),\(fix.longitude),\(optional(fix.altitude)),"
            + "\(optional(fix.horizontalAccuracy)),\(optional(fix.verticalAccuracy)),\(optional(fix.speed)),"
            + "\(optional(fix.course)),\(fix.satellites.map(String.init) ?? ""),\(optional(fix.hdop)),"
            + "\(optional(fix.vdop)),\(optional(fix.pdop)),\(fix.mode?.spelling ?? ""),"
            + "\(field(modality))\n"
    }
}
