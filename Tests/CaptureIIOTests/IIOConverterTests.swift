import CaptureCore
import CaptureIIO
import Testing

@Suite struct IIOConverterTests {
    private func le16(_ value: Int16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }

    @Test func reassemblesScansSplitAcrossReads() {
        var reassembler = IIOScanReassembler(scanSize: 16)
        let scan = Array(0..<16).map(UInt8.init)
        #expect(reassembler.push(scan[0..<5]).isEmpty)
        #expect(reassembler.pendingByteCount == 5)
        #expect(reassembler.push(scan[5...] + scan + scan[0..<3]) == scan + scan)
        #expect(reassembler.pendingByteCount == 3)
        var empty = IIOScanReassembler(scanSize: 0)
        #expect(empty.push(scan).isEmpty)
    }

    @Test func magnetometerWithPerAxisScaleMountMatrixAndUnits() throws {
        let files: [String: String] = [
            "in_magn_x_scale": "0.002\n", "in_magn_scale": "0.001\n", "in_magn_offset": "10\n",
            "in_magn_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, -1\n",
        ]
        let converter = try IIOMotionConverter.resolve(sensor: .magnetometer) { files[$0] }
        #expect(converter.axes.map(\.name) == ["in_magn_x", "in_magn_y", "in_magn_z"])
        #expect(converter.calibrations.map(\.scale) == [0.002, 0.001, 0.001])
        let sample = converter.sample(rawX: 90, rawY: 190, rawZ: -10, timestamp: 7)
        // x: (90+10)·0.002 G = 20 µT, y: (190+10)·0.001 G = 20 µT… then swapped and z negated.
        let chip = (x: 100 * 0.002 * 100, y: 200 * 0.001 * 100, z: 0.0)
        #expect(abs(sample.x - chip.y) < 1e-9 && abs(sample.y - chip.x) < 1e-9 && sample.z == -chip.z)
        #expect(sample.timestamp == 7)
    }

    @Test func accelerometerFromAScanAndByPolling() throws {
        let files: [String: String] = ["in_accel_scale": "0.000598\n", "mount_matrix": "1, 0, 0; 0, 1, 0; 0, 0, 1"]
        let converter = try IIOMotionConverter.resolve(sensor: .accelerometer) { files[$0] }
        let layout = try IIOScanLayout(channels: [
            IIOScanChannel(name: "in_accel_x", index: 0, type: IIOScanType(parsing: "le:s16/16>>0")),
            IIOScanChannel(name: "in_accel_y", index: 1, type: IIOScanType(parsing: "le:s16/16>>0")),
            IIOScanChannel(name: "in_accel_z", index: 2, type: IIOScanType(parsing: "le:s16/16>>0")),
        ])
        let values = try layout.decode(le16(100) + le16(-200) + le16(16384) + [0, 0])
        let sample = try converter.sample(fromScan: values, timestamp: 1)
        #expect(abs(sample.x - 0.0598) < 1e-12 && abs(sample.y + 0.1196) < 1e-12 && abs(sample.z - 9.797632) < 1e-12)
        #expect(throws: IIOError.channelNotInScan("in_accel_z")) {
            try converter.sample(fromScan: ["in_accel_x": [.signed(1)], "in_accel_y": [.signed(1)]], timestamp: 1)
        }
        let polled = try converter.polledSample(attribute: { name in
            ["in_accel_x_raw": "100\n", "in_accel_y_raw": "-200\n", "in_accel_z_input": "9.81\n"][name] ?? files[name]
        }, timestamp: 2)
        #expect(abs(polled.x - 0.0598) < 1e-12 && abs(polled.y + 0.1196) < 1e-12 && polled.z == 9.81)
        #expect(throws: IIOError.missingValue(channel: "in_accel_x")) {
            try converter.polledSample(attribute: { _ in nil }, timestamp: 3)
        }
        #expect(IIOMotionConverter(sensor: .gyroscope, axes: [], calibrations: []) == nil)
    }

    @Test func pressureInputAndRawPathsGiveHectopascals() throws {
        let channel = try #require(IIOChannelName(parsing: "in_pressure"))
        // Older bmp280 kernels: _input only, in kPa.
        let input = IIOPressureConverter(channel: channel)
        #expect(try input.polledSample(attribute: { $0 == "in_pressure_input" ? "100.125\n" : nil }, timestamp: 1)
            == PressureSample(timestamp: 1, hectopascals: 1001.25))
        // Newer ones: _raw × _scale.
        let files = ["in_pressure_raw": "25632\n", "in_pressure_scale": "0.00390625\n"]
        let raw = try IIOPressureConverter.resolve(channel: channel) { files[$0] }
        #expect(try raw.polledSample(attribute: { files[$0] }, timestamp: 2).hectopascals == 1001.25)
        #expect(raw.hectopascals(raw: .unsigned(25632)) == 1001.25)
        #expect(try raw.sample(fromScan: ["in_pressure": [.unsigned(25632)]], timestamp: 3).hectopascals == 1001.25)
        #expect(throws: IIOError.channelNotInScan("in_pressure")) { try raw.sample(fromScan: [:], timestamp: 3) }
        #expect(throws: IIOError.missingValue(channel: "in_pressure")) { try raw.polledSample(attribute: { _ in nil }, timestamp: 4) }
    }
}
