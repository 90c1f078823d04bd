import ArgumentParser
import CaptureSensors
import Foundation

/// `capture sensors`: what can be captured from on this machine.
struct Sensors: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors",
        abstract: "List the motion, pressure and GNSS sensors capture can use.",
        discussion: """
            IIO devices are found by their channel files under <sysfs-root>/sys/bus/iio/devices, \
            not by name. For each: the device path, name, label, channels, available sampling \
            rates, whether it can stream through a buffer and how it would be triggered. GNSS: \
            whether gpsd answers and, watched for --listen seconds, its receivers, the reports \
            they send and whether one has an IMU (gpsd's IMU and ATT reports, recorded as \
            accelerometer, gyroscope and magnetometer samples by a gpsd source); and GNSS device \
            nodes under <sysfs-root>/dev.
            """)

    // Accepted like every command's, though listing sensors reads no measurement.
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Where sys/bus/iio/devices and dev are looked up.")
    var sysfsRoot = "/"

    @Option(help: "The gpsd to ask (HOST:PORT).")
    var gpsd = GPSDSource.defaultAddress

    @Option(help: ArgumentHelp("How long to watch gpsd's reports, when it answers (0: only check it answers).", valueName: "seconds"))
    var listen: Double = 2

    func run() throws {
        try execute {
            guard let gpsdSource = GPSDSource(address: gpsd) else {
                throw CLIError(.usage, "bad --gpsd address '\(gpsd)'; use HOST:PORT")
            }
            guard listen >= 0, listen <= 600 else {
                throw CLIError(.usage, "bad --listen '\(listen)'; use 0 to 600 seconds")
            }
            let survey = SensorSurvey(sysfsRoot: sysfsRoot, gpsd: gpsdSource, listen: Int64(listen * 1000))
            if output.json {
                try printJSON(survey)
                return
            }
            if survey.iio.isEmpty { print("no IIO devices under \(survey.devicesDirectory)") }
            for device in survey.iio {
                print("\(device.id)  \(device.name)\(device.label.map { " (\($0))" } ?? "")  \(device.path)")
                print("  sensors: \(device.sensors.isEmpty ? "none this tool records" : device.sensors.joined(separator: ", "))")
                print("  channels: \(device.channels.joined(separator: " "))")
                print("  rates: \(device.availableRates ?? "-")\(device.currentRate.map { " (now \($0) Hz)" } ?? "")")
                print("  buffer: \(device.buffer ? "yes, \(device.node)" : "no (polled)"); trigger: \(device.trigger)")
                if let clock = device.timestampClock { print("  timestamp clock: \(clock)") }
                if let source = device.source { print("  source: \(source)") }
            }
            for entry in survey.gnss {
                print("\(entry.source)  \(entry.state.rawValue)")
                guard let watched = entry.watched else { continue }
                let seconds = listen.formatted(.number.precision(.fractionLength(0...1)))
                print("  receivers: \(watched.receivers.isEmpty ? "none named" : watched.receivers.joined(separator: ", "))")
                let reports = watched.reports.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                print("  reports in \(seconds) s: \(reports.isEmpty ? "none" : reports.joined(separator: ", "))\(watched.fix ? " (fix)" : "")")
                print("  IMU: " + (watched.motion.isEmpty ? "none reported" : "yes, recorded as \(watched.motion.joined(separator: ", "))"))
            }
        }
    }
}
