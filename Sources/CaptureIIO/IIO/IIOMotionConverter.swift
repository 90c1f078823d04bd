package import CaptureCore

extension MotionSensor {
    /// The IIO channel type of the sensor: `accel`, `anglvel` or `magn`.
    package var iioChannelType: String {
        switch self {
        case .accelerometer: "accel"
        case .gyroscope: "anglvel"
        case .magnetometer: "magn"
        }
    }
}

/// Turns one three-axis IIO sensor's raw values into ``MotionSample``s: per axis
/// `(raw + offset) × scale`, then IIO unit → recorded unit (gauss → µT), then the mount matrix.
package struct IIOMotionConverter: Sendable, Equatable {
    /// Which sensor.
    package let sensor: MotionSensor
    /// The x, y and z channels (`in_accel_x`, `in_accel_y`, `in_accel_z`).
    package let axes: [IIOChannelName]
    /// Offset and scale per axis, in the order of ``axes``.
    package let calibrations: [IIOCalibration]
    /// The rotation applied last.
    package let mountMatrix: IIOMountMatrix

    /// A converter from known parts; `axes` and `calibrations` must have three entries each.
    package init?(
        sensor: MotionSensor, axes: [IIOChannelName], calibrations: [IIOCalibration], mountMatrix: IIOMountMatrix = .identity
    ) {
        guard axes.count == 3, calibrations.count == 3 else { return nil }
        self.init(checkedSensor: sensor, axes: axes, calibrations: calibrations, mountMatrix: mountMatrix)
    }

    /// Reads everything from a device directory through `attribute` (file name → text, `nil`
    /// when absent): per-axis or shared `_scale`/`_offset`, and `in_<type>_mount_matrix` or
    /// `mount_matrix` (identity when neither exists).
    package static func resolve(sensor: MotionSensor, attribute: (String) -> String?) throws(IIOError) -> IIOMotionConverter {
        var axes: [IIOChannelName] = []
        var calibrations: [IIOCalibration] = []
        for axis in ["x", "y", "z"] {
            let name = IIOChannelName(direction: "in", type: sensor.iioChannelType, modifier: axis)
            axes.append(name)
            calibrations.append(try IIOCalibration.resolve(for: name, attribute: attribute))
        }
        var matrix = IIOMountMatrix.identity
        for file in ["in_\(sensor.iioChannelType)_mount_matrix", "mount_matrix"] {
            if let text = attribute(file) {
                matrix = try IIOMountMatrix(parsing: text)
                break
            }
        }
        // Three axes by construction.
        return IIOMotionConverter(checkedSensor: sensor, axes: axes, calibrations: calibrations, mountMatrix: matrix)
    }

    private init(checkedSensor sensor: MotionSensor, axes: [IIOChannelName], calibrations: [IIOCalibration], mountMatrix: IIOMountMatrix) {
        self.sensor = sensor
        self.axes = axes
        self.calibrations = calibrations
        self.mountMatrix = mountMatrix
    }

    /// A sample from three raw values (x, y, z as read from the chip).
    package func sample(rawX: Double, rawY: Double, rawZ: Double, timestamp: Int64) -> MotionSample {
        let x = IIOUnits.recordedValue(calibrations[0].apply(rawX), for: sensor)
        let y = IIOUnits.recordedValue(calibrations[1].apply(rawY), for: sensor)
        let z = IIOUnits.recordedValue(calibrations[2].apply(rawZ), for: sensor)
        return mountMatrix.apply(MotionSample(timestamp: timestamp, x: x, y: y, z: z))
    }

    /// A sample from one decoded scan (``IIOScanLayout/decode(_:scanAt:)``).
    package func sample(fromScan values: [String: [IIORawValue]], timestamp: Int64) throws(IIOError) -> MotionSample {
        var raw: [Double] = []
        for axis in axes {
            guard let value = values[axis.name]?.first else { throw .channelNotInScan(axis.name) }
            raw.append(value.doubleValue)
        }
        return sample(rawX: raw[0], rawY: raw[1], rawZ: raw[2], timestamp: timestamp)
    }

    /// A sample by polling sysfs: each axis's `_input` if present (already scaled), else `_raw`
    /// with this converter's calibration.
    package func polledSample(attribute: (String) -> String?, timestamp: Int64) throws(IIOError) -> MotionSample {
        var values: [Double] = []
        for (axis, calibration) in zip(axes, calibrations) {
            let inputName = axis.name + "_input"
            if let text = attribute(inputName) {
                values.append(try IIOSysfs.double(text, attribute: inputName))
            } else {
                let rawName = axis.name + "_raw"
                guard let text = attribute(rawName) else { throw .missingValue(channel: axis.name) }
                values.append(calibration.apply(try IIOSysfs.double(text, attribute: rawName)))
            }
        }
        let sample = MotionSample(
            timestamp: timestamp, x: IIOUnits.recordedValue(values[0], for: sensor),
            y: IIOUnits.recordedValue(values[1], for: sensor), z: IIOUnits.recordedValue(values[2], for: sensor))
        return mountMatrix.apply(sample)
    }
}

/// Turns an IIO pressure channel into hPa (IIO reports kPa).
package struct IIOPressureConverter: Sendable, Equatable {
    /// `in_pressure` or `in_pressure0`, …
    package let channel: IIOChannelName
    /// Offset and scale for `_raw` values.
    package let calibration: IIOCalibration

    /// A converter from known parts.
    package init(channel: IIOChannelName, calibration: IIOCalibration = .init()) {
        self.channel = channel
        self.calibration = calibration
    }

    /// Reads `_scale`/`_offset` for `channel` through `attribute`.
    package static func resolve(channel: IIOChannelName, attribute: (String) -> String?) throws(IIOError) -> IIOPressureConverter {
        IIOPressureConverter(channel: channel, calibration: try IIOCalibration.resolve(for: channel, attribute: attribute))
    }

    /// hPa from a raw buffered value.
    package func hectopascals(raw: IIORawValue) -> Double {
        IIOUnits.hectopascals(fromKilopascals: calibration.apply(raw))
    }

    /// A sample from one decoded scan.
    package func sample(fromScan values: [String: [IIORawValue]], timestamp: Int64) throws(IIOError) -> PressureSample {
        guard let raw = values[channel.name]?.first else { throw .channelNotInScan(channel.name) }
        return PressureSample(timestamp: timestamp, hectopascals: hectopascals(raw: raw))
    }

    /// A sample by polling: `_input` (older bmp280 drivers expose only this) or `_raw` × scale.
    package func polledSample(attribute: (String) -> String?, timestamp: Int64) throws(IIOError) -> PressureSample {
        let inputName = channel.name + "_input"
        let kilopascals: Double
        if let text = attribute(inputName) {
            kilopascals = try IIOSysfs.double(text, attribute: inputName)
        } else {
            let rawName = channel.name + "_raw"
            guard let text = attribute(rawName) else { throw .missingValue(channel: channel.name) }
            kilopascals = calibration.apply(try IIOSysfs.double(text, attribute: rawName))
        }
        return PressureSample(timestamp: timestamp, hectopascals: IIOUnits.hectopascals(fromKilopascals: kilopascals))
    }
}
