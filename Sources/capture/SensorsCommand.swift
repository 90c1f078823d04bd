import ArgumentParser
import CaptureCore
import CaptureSensors
import Foundation
import Glibc

/// `capture sensors`: what can be captured from on this machine.
struct Sensors: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors",
        abstract: "List the motion, pressure and GNSS sensors capture can use.",
        discussion: """
            IIO devices are found by their channel files under <sysfs-root>/sys/bus/iio/devices, \
            not by name. For each: the device path, name, label, channels, available sampling \
            rates, whether it can stream through a buffer and how it would be triggered. GNSS: \
            whether gpsd answers, and GNSS device nodes under <sysfs-root>/dev.
            """)

    // Accepted like every command's, though listing sensors reads no measurement.
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Where sys/bus/iio/devices and dev are looked up.")
    var sysfsRoot = "/"

    @Option(help: "The gpsd to ask (HOST:PORT).")
    var gpsd = GPSDSource.defaultAddress

    struct DeviceReport: Codable {
        var id: String
        var path: String
        var node: String
        var name: String
        var label: String?
        var sensors: [String]
        var channels: [String]
        var availableRates: String?
        var currentRate: Double?
        var buffer: Bool
        var trigger: String
        var timestampClock: String?
        var source: String?
    }

    struct GNSSReport: Codable {
        var source: String
        var state: String
    }

    struct Report: Codable {
        var sysfsRoot: String
        var iio: [DeviceReport]
        var gnss: [GNSSReport]
    }

    func run() throws {
        try execute {
            let root = SourceSpec.absolute(sysfsRoot)
            guard let gpsdSource = GPSDSource(address: gpsd) else {
                throw CLIError(.usage, "bad --gpsd address '\(gpsd)'; use HOST:PORT")
            }
            let devices = IIODiscovery.devices(root: root).map { device in
                var sensors = MotionSensor.allCases.filter { device.capabilities.motionSensors.contains($0) }.map(\.shortName)
                if !device.capabilities.pressureChannels.isEmpty { sensors.append("prs") }
                return DeviceReport(
                    id: device.id, path: device.directory.path, node: device.node, name: device.name, label: device.label,
                    sensors: sensors, channels: device.channels, availableRates: device.availableRatesText,
                    currentRate: device.currentRate, buffer: device.canStream, trigger: device.triggerSummary,
                    timestampClock: device.timestampClock, source: device.isUseful ? device.sourceSpec : nil)
            }
            var gnss = [GNSSReport(source: gpsdSource.name, state: gpsdSource.isReachable() ? "answering" : "not answering")]
            for node in SourceSpec.gnssNodes(root: root) {
                let state = access(node, R_OK) == 0 ? "present" : "present, no read permission"
                gnss.append(GNSSReport(source: "nmea:" + node, state: state))
            }
            let report = Report(sysfsRoot: root, iio: devices, gnss: gnss)
            if output.json {
                try printJSON(report)
                return
            }
            if devices.isEmpty { print("no IIO devices under \(IIODiscovery.devicesDirectory(root: root).path)") }
            for device in devices {
                print("\(device.id)  \(device.name)\(device.label.map { " (\($0))" } ?? "")  \(device.path)")
                print("  sensors: \(device.sensors.isEmpty ? "none this tool records" : device.sensors.joined(separator: ", "))")
                print("  channels: \(device.channels.joined(separator: " "))")
                print("  rates: \(device.availableRates ?? "-")\(device.currentRate.map { " (now \($0) Hz)" } ?? "")")
                print("  buffer: \(device.buffer ? "yes, \(device.node)" : "no (polled)"); trigger: \(device.trigger)")
                if let clock = device.timestampClock { print("  timestamp clock: \(clock)") }
                if let source = device.source { print("  source: \(source)") }
            }
            for entry in gnss { print("\(entry.source)  \(entry.state)") }
        }
    }
}
