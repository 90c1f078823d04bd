import CaptureCore
import CaptureIIO
import Testing

@Suite struct IIODeviceDirectoryTests {
    @Test func capabilitiesFromFileNames() {
        let accelGyro = IIODeviceCapabilities(fileNames: [
            "name", "in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw", "in_accel_scale",
            "in_anglvel_x_raw", "in_anglvel_y_raw", "sampling_frequency", "buffer0", "scan_elements",
        ])
        #expect(accelGyro.motionSensors == [.accelerometer])  // gyroscope lacks z
        #expect(accelGyro.pressureChannels.isEmpty)
        #expect(accelGyro.hasBuffer)
        let barometer = IIODeviceCapabilities(fileNames: ["name", "in_pressure_input", "in_pressure_raw", "in_temp_input"])
        #expect(barometer.pressureChannels.map(\.name) == ["in_pressure"])
        #expect(barometer.motionSensors.isEmpty && !barometer.hasBuffer)
        let magnetometer = IIODeviceCapabilities(fileNames: ["in_magn_x_input", "in_magn_y_input", "in_magn_z_input", "in_pressure0_raw"])
        #expect(magnetometer.motionSensors == [.magnetometer])
        #expect(magnetometer.pressureChannels.map(\.name) == ["in_pressure0"])
    }

    @Test func bufferDirectoriesNewestFirst() {
        #expect(IIOBufferDirectories.scanElements() == ["buffer0", "scan_elements"])
        #expect(IIOBufferDirectories.control() == ["buffer0", "buffer"])
        #expect(IIOBufferDirectories.scanElements(buffer: 1) == ["buffer1"])
    }

    @Test func scanChannelsFromAScanElementsDirectory() throws {
        // The fake tree from the research notes: three s16 axes with a shared type, plus a timestamp.
        let files: [String: String] = [
            "in_accel_x_en": "1\n", "in_accel_x_index": "0\n", "in_accel_y_en": "1\n", "in_accel_y_index": "1\n",
            "in_accel_z_en": "1\n", "in_accel_z_index": "2\n", "in_accel_type": "le:s16/16>>0\n",
            "in_timestamp_en": "0\n", "in_timestamp_index": "3\n", "in_timestamp_type": "le:s64/64>>0\n",
        ]
        let channels = try IIOBufferDirectories.channels(fileNames: Array(files.keys)) { files[$0] }
        #expect(channels.map(\.name) == ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(channels.map(\.isEnabled) == [true, true, true, false])
        #expect(try IIOScanLayout(channels: channels).scanSize == 6)
        var withTimestamp = files
        withTimestamp["in_timestamp_en"] = "1\n"
        let all = try IIOBufferDirectories.channels(fileNames: Array(withTimestamp.keys)) { withTimestamp[$0] }
        #expect(try IIOScanLayout(channels: all).scanSize == 16)
        #expect(throws: IIOError.missingAttribute("in_accel_x_index")) {
            try IIOBufferDirectories.channels(fileNames: ["in_accel_x_en"]) { $0 == "in_accel_x_en" ? "1" : nil }
        }
        #expect(throws: IIOError.missingAttribute("in_accel_x_type")) {
            try IIOBufferDirectories.channels(fileNames: ["in_accel_x_en"]) { ["in_accel_x_en": "1", "in_accel_x_index": "0"][$0] }
        }
        #expect(throws: IIOError.unsupportedSign("f", type: "le:f32/32>>0")) {
            try IIOBufferDirectories.channels(fileNames: ["in_accel_x_en"]) {
                ["in_accel_x_en": "1", "in_accel_x_index": "0", "in_accel_x_type": "le:f32/32>>0"][$0]
            }
        }
    }
}
