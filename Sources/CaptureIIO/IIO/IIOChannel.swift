package import CaptureCore

/// The parts of an IIO channel name `<dir>_<type>[index][_modifier]`, e.g. `in_accel_x`,
/// `in_pressure0`, `in_anglvel_z`, `in_accel_linear_x`, `in_timestamp`.
package struct IIOChannelName: Sendable, Hashable {
    /// `in` or `out`.
    package var direction: String
    /// The channel type: `accel`, `anglvel`, `magn`, `pressure`, `temp`, `timestamp`, …
    package var type: String
    /// The number after the type (`0` in `in_pressure0`), if any.
    package var index: Int?
    /// Everything after the type and index (`x`, `linear_x`), if any.
    package var modifier: String?

    /// Splits a channel name; `nil` if it does not start with `in_` or `out_` followed by a type.
    package init?(parsing name: String) {
        let parts = name.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "in" || parts[0] == "out" else { return nil }
        let typeAndIndex = parts[1]
        let type = typeAndIndex.prefix { !$0.isNumber }
        let indexText = typeAndIndex.dropFirst(type.count)
        guard !type.isEmpty, type.allSatisfy({ $0.isASCII && $0.isLowercase }),
            indexText.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        direction = String(parts[0])
        self.type = String(type)
        index = indexText.isEmpty ? nil : Int(indexText)
        modifier = parts.count == 3 && !parts[2].isEmpty ? String(parts[2]) : nil
        if parts.count == 3, parts[2].isEmpty { return nil }
    }

    /// A name from its parts, e.g. `("in", "accel", modifier: "x")` for `in_accel_x`.
    package init(direction: String, type: String, index: Int? = nil, modifier: String? = nil) {
        self.direction = direction
        self.type = type
        self.index = index
        self.modifier = modifier
    }

    /// The full channel name.
    package var name: String {
        var text = direction + "_" + type
        if let index { text += String(index) }
        if let modifier { text += "_" + modifier }
        return text
    }

    /// Attribute file names for `info` (`scale`, `offset`, `type`, …), most specific first:
    /// `in_accel_x_scale`, then the one shared by all channels of the type, `in_accel_scale`.
    package func attributeCandidates(_ info: String) -> [String] {
        let own = name + "_" + info
        let shared = direction + "_" + type + "_" + info
        return own == shared ? [own] : [own, shared]
    }

    /// The motion sensor this channel belongs to: `accel` → accelerometer, `anglvel` → gyroscope,
    /// `magn` → magnetometer (`accel_linear`/`gravity` variants are not the raw accelerometer).
    package var motionSensor: MotionSensor? {
        switch type {
        case "accel" where modifier.map({ ["x", "y", "z"].contains($0) }) ?? false: .accelerometer
        case "anglvel": .gyroscope
        case "magn": .magnetometer
        default: nil
        }
    }
}

/// Offset and scale that turn a raw channel value into the IIO unit: `(raw + offset) × scale`
/// (the offset is added before scaling; K-ABI).
package struct IIOCalibration: Sendable, Hashable {
    /// Added to the raw value before scaling (0 when the attribute is absent).
    package var offset: Double
    /// Multiplies the offset raw value (1 when the attribute is absent).
    package var scale: Double

    /// A calibration; the defaults leave raw values unchanged.
    package init(offset: Double = 0, scale: Double = 1) {
        self.offset = offset
        self.scale = scale
    }

    /// `(raw + offset) × scale`.
    package func apply(_ raw: Double) -> Double {
        (raw + offset) * scale
    }

    /// `(raw + offset) × scale` for a decoded scan value.
    package func apply(_ raw: IIORawValue) -> Double {
        apply(raw.doubleValue)
    }

    /// Looks up `_scale` and `_offset` for `channel` through `attribute` (which returns a sysfs
    /// file's text, or `nil` if the file does not exist). A per-channel file (`in_magn_x_scale`)
    /// wins over the shared one (`in_magn_scale`). `_calibbias`/`_calibscale` are applied by the
    /// hardware and deliberately ignored.
    package static func resolve(
        for channel: IIOChannelName, attribute: (String) -> String?
    ) throws(IIOError) -> IIOCalibration {
        var calibration = IIOCalibration()
        for name in channel.attributeCandidates("scale") {
            if let text = attribute(name) {
                calibration.scale = try IIOSysfs.double(text, attribute: name)
                break
            }
        }
        for name in channel.attributeCandidates("offset") {
            if let text = attribute(name) {
                calibration.offset = try IIOSysfs.double(text, attribute: name)
                break
            }
        }
        return calibration
    }

    /// A polled value in the IIO unit: `<channel>_input` if it exists (already scaled), else
    /// `<channel>_raw` with offset and scale.
    package static func polledValue(
        for channel: IIOChannelName, attribute: (String) -> String?
    ) throws(IIOError) -> Double {
        let inputName = channel.name + "_input"
        if let text = attribute(inputName) { return try IIOSysfs.double(text, attribute: inputName) }
        let rawName = channel.name + "_raw"
        guard let text = attribute(rawName) else { throw .missingValue(channel: channel.name) }
        let raw = try IIOSysfs.double(text, attribute: rawName)
        return try resolve(for: channel, attribute: attribute).apply(raw)
    }
}
