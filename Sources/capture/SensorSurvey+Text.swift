import CaptureSensors
import Foundation

extension SensorSurvey {
    /// The human-readable form of `capture sensors`, each line ending in a newline; `listened`
    /// is how many seconds gpsd's reports were watched.
    func text(listened: Double) -> String {
        var text = ""
        func add(_ line: String) { text += line + "\n" }
        if iio.isEmpty { add("no IIO devices under \(devicesDirectory)") }
        for device in iio {
            add("\(device.id)  \(device.name)\(device.label.map { " (\($0))" } ?? "")  \(device.path)")
            add("  sensors: \(device.sensors.isEmpty ? "none this tool records" : device.sensors.joined(separator: ", "))")
            add("  channels: \(device.channels.joined(separator: " "))")
            add("  rates: \(device.availableRates ?? "-")\(device.currentRate.map { " (now \($0) Hz)" } ?? "")")
            add("  buffer: \(device.buffer ? "yes, \(device.node)" : "no (polled)"); trigger: \(device.trigger)")
            if let clock = device.timestampClock { add("  timestamp clock: \(clock)") }
            if let source = device.source { add("  source: \(source)") }
        }
        for entry in gnss {
            add("\(entry.source)  \(entry.state.rawValue)")
            guard let watched = entry.watched else { continue }
            let seconds = listened.formatted(.number.precision(.fractionLength(0...1)))
            add("  receivers: \(watched.receivers.isEmpty ? "none named" : watched.receivers.joined(separator: ", "))")
            let reports = watched.reports.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            add("  reports in \(seconds) s: \(reports.isEmpty ? "none" : reports.joined(separator: ", "))\(watched.fix ? " (fix)" : "")")
            add("  IMU: " + (watched.motion.isEmpty ? "none reported" : "yes, recorded as \(watched.motion.joined(separator: ", "))"))
        }
        return text
    }
}
