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
        guard let gpsdSource = GPSDSource(address: gpsd) else {
            throw CLIError(.usage, "bad --gpsd address '\(gpsd)'; use HOST:PORT")
        }
        guard listen >= 0, listen <= 600 else {
            throw CLIError(.usage, "bad --listen '\(listen)'; use 0 to 600 seconds")
        }
        let survey = SensorSurvey(sysfsRoot: sysfsRoot, gpsd: gpsdSource, listen: Int64(listen * 1000))
        if output.json { try printJSON(survey) } else { print(survey.text(listened: listen), terminator: "") }
    }
}
