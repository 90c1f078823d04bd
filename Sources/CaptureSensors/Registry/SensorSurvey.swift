import CaptureCore
import Glibc

/// What `capture sensors` lists: every IIO device under a sysfs root, whether gpsd answers,
/// and the GNSS device nodes. Field names are the `--json` output's.
package struct SensorSurvey: Sendable, Equatable, Codable {
    /// One IIO device, as listed.
    package struct Device: Sendable, Equatable, Codable {
        /// `iio:device0`.
        package var id: String
        /// The sysfs directory.
        package var path: String
        /// The character device.
        package var node: String
        /// The `name` attribute.
        package var name: String
        /// The `label` attribute, if any.
        package var label: String?
        /// Short names of what it measures that capture records: `acc`, `gyr`, `mag`, `prs`.
        package var sensors: [String]
        /// Channels with a value file.
        package var channels: [String]
        /// `sampling_frequency_available` as the device says it.
        package var availableRates: String?
        /// `sampling_frequency`, Hz, when sensible.
        package var currentRate: Double?
        /// Whether buffered capture is possible.
        package var buffer: Bool
        /// How buffered capture would be triggered (``IIODevice/triggerSummary``).
        package var trigger: String
        /// `current_timestamp_clock`, if present.
        package var timestampClock: String?
        /// The spec that captures from it, for useful devices.
        package var source: String?

        /// The entry for `device`.
        package init(_ device: IIODevice) {
            var sensors = MotionSensor.allCases.filter { device.capabilities.motionSensors.contains($0) }.map(\.shortName)
            if !device.capabilities.pressureChannels.isEmpty { sensors.append("prs") }
            self.id = device.id
            path = device.directory.path
            node = device.node
            name = device.name
            label = device.label
            self.sensors = sensors
            channels = device.channels
            availableRates = device.availableRatesText
            currentRate = device.currentRate
            buffer = device.canStream
            trigger = device.triggerSummary
            timestampClock = device.timestampClock
            source = device.isUseful ? device.sourceSpec : nil
        }
    }

    /// A GNSS source and what is known of it.
    package struct GNSS: Sendable, Equatable, Codable {
        /// What is known of a GNSS source without reading from it.
        package enum State: String, Sendable, Equatable, Codable {
            /// gpsd accepted a connection.
            case answering
            /// gpsd did not.
            case notAnswering = "not answering"
            /// A device node exists and is readable.
            case present
            /// A device node exists but this user may not read it.
            case presentUnreadable = "present, no read permission"
        }

        /// The spec: `gpsd:127.0.0.1:2947`, `nmea:/dev/ttyACM0`.
        package var source: String
        /// What is known of it.
        package var state: State
        /// For gpsd, what a short watch showed (receivers, reports, whether a receiver has an
        /// IMU); `nil` when not watched.
        package var watched: GPSDSource.Probe?
    }

    /// The absolute sysfs root looked at.
    package var sysfsRoot: String
    /// Every `iio:deviceN`, useful or not, in device-number order.
    package var iio: [Device]
    /// gpsd first, then the device nodes.
    package var gnss: [GNSS]

    /// Looks at the machine: IIO devices under `sysfsRoot` (made absolute), whether `gpsd`
    /// answers (and, for `listen` ms, what it reports), device nodes under `<sysfsRoot>/dev`.
    package init(sysfsRoot: String, gpsd: GPSDSource = GPSDSource(), listen: Int64 = 0) {
        let root = SourcePath.absolute(sysfsRoot)
        self.sysfsRoot = root
        iio = IIODiscovery.devices(root: root).map(Device.init)
        if listen > 0, let probe = gpsd.probe(milliseconds: listen) {
            gnss = [GNSS(source: gpsd.name, state: .answering, watched: probe)]
        } else {
            gnss = [GNSS(source: gpsd.name, state: gpsd.isReachable() ? .answering : .notAnswering)]
        }
        for node in NMEASourceKind.deviceNodes(root: root) {
            gnss.append(GNSS(source: "nmea:" + node, state: access(node, R_OK) == 0 ? .present : .presentUnreadable))
        }
    }

    /// The directory the IIO devices were looked for in.
    package var devicesDirectory: String { IIODiscovery.devicesDirectory(root: sysfsRoot).path }
}
