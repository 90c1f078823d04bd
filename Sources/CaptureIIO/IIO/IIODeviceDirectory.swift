package import CaptureCore

/// What an IIO device directory offers, judged from its file names (devices are matched by the
/// channels they expose, not by `name`, because one chip can appear as several devices).
package struct IIODeviceCapabilities: Sendable, Equatable {
    /// Motion sensors with all three axes present (`in_accel_{x,y,z}_raw` or `_input`).
    package var motionSensors: Set<MotionSensor>
    /// Pressure channels (`in_pressure`, `in_pressure0`, …) with `_raw` or `_input`.
    package var pressureChannels: [IIOChannelName]
    /// Whether the device has a buffer (`buffer0/` or legacy `buffer/`) to stream from.
    package var hasBuffer: Bool

    /// Classifies a device directory's entries (plain names such as `in_accel_x_raw`, `buffer0`).
    package init(fileNames: [String]) {
        let names = Set(fileNames)
        func hasValue(_ channel: String) -> Bool {
            names.contains(channel + "_raw") || names.contains(channel + "_input")
        }
        motionSensors = Set(MotionSensor.allCases.filter { sensor in
            ["x", "y", "z"].allSatisfy { hasValue("in_\(sensor.iioChannelType)_\($0)") }
        })
        var pressure: [IIOChannelName] = []
        for name in names.sorted() {
            for suffix in ["_raw", "_input"] where name.hasSuffix(suffix) {
                guard let channel = IIOChannelName(parsing: String(name.dropLast(suffix.count))),
                    channel.type == "pressure", channel.modifier == nil, !pressure.contains(channel)
                else { continue }
                pressure.append(channel)
            }
        }
        pressureChannels = pressure
        hasBuffer = names.contains("buffer0") || names.contains("buffer")
    }
}

/// Where buffered-capture attributes live, newest layout first.
///
/// Since Linux 5.11 the scan elements sit in `bufferY/`; the first buffer keeps the legacy
/// `scan_elements/` (elements) and `buffer/` (`enable`, `length`) links. Try these in order.
package enum IIOBufferDirectories {
    /// Directories (relative to the device) that may hold `*_en`, `*_index`, `*_type`.
    package static func scanElements(buffer: Int = 0) -> [String] {
        buffer == 0 ? ["buffer0", "scan_elements"] : ["buffer\(buffer)"]
    }

    /// Directories that may hold `enable`, `length` and `watermark`.
    package static func control(buffer: Int = 0) -> [String] {
        buffer == 0 ? ["buffer0", "buffer"] : ["buffer\(buffer)"]
    }

    /// Builds the scan channels from a scan-elements directory: every `<channel>_en` file with
    /// its `<channel>_index` and its own or shared `_type` (`in_accel_x_type`, else
    /// `in_accel_type`). `attribute` returns a file's text in that directory, `nil` if absent.
    package static func channels(fileNames: [String], attribute: (String) -> String?) throws(IIOError) -> [IIOScanChannel] {
        var channels: [IIOScanChannel] = []
        for file in fileNames.sorted() where file.hasSuffix("_en") {
            let name = String(file.dropLast(3))
            guard let channel = IIOChannelName(parsing: name) else { throw .invalidChannelName(name) }
            guard let enabledText = attribute(file) else { throw .missingAttribute(file) }
            guard let indexText = attribute(name + "_index") else { throw .missingAttribute(name + "_index") }
            var typeText: String? = nil
            for candidate in channel.attributeCandidates("type") {
                if let text = attribute(candidate) {
                    typeText = text
                    break
                }
            }
            guard let typeText else { throw .missingAttribute(name + "_type") }
            channels.append(
                IIOScanChannel(
                    name: name, index: try IIOSysfs.int(indexText, attribute: name + "_index"),
                    type: try IIOScanType(parsing: typeText), isEnabled: try IIOSysfs.bool(enabledText, attribute: file)))
        }
        return channels.sorted { $0.index < $1.index }
    }
}
