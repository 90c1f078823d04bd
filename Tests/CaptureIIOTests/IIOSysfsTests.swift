import CaptureCore
import CaptureIIO
import Testing

@Suite struct IIOSysfsTests {
    @Test func channelNames() throws {
        let x = try #require(IIOChannelName(parsing: "in_accel_x"))
        #expect(x.direction == "in" && x.type == "accel" && x.index == nil && x.modifier == "x")
        #expect(x.attributeCandidates("scale") == ["in_accel_x_scale", "in_accel_scale"])
        #expect(x.motionSensor == .accelerometer)
        let pressure = try #require(IIOChannelName(parsing: "in_pressure0"))
        #expect(pressure.type == "pressure" && pressure.index == 0 && pressure.modifier == nil)
        #expect(pressure.attributeCandidates("scale") == ["in_pressure0_scale", "in_pressure_scale"])
        let linear = try #require(IIOChannelName(parsing: "in_accel_linear_x"))
        #expect(linear.modifier == "linear_x" && linear.motionSensor == nil)
        #expect(IIOChannelName(parsing: "in_anglvel_z")?.motionSensor == .gyroscope)
        #expect(IIOChannelName(parsing: "in_magn_y")?.motionSensor == .magnetometer)
        let timestamp = try #require(IIOChannelName(parsing: "in_timestamp"))
        #expect(timestamp.attributeCandidates("type") == ["in_timestamp_type"])
        for bad in ["", "accel_x", "in_", "in_0", "in_accel_", "xx_accel_x", "in_Accel_x"] {
            #expect(IIOChannelName(parsing: bad) == nil, "\(bad)")
        }
        #expect(IIOChannelName(parsing: "in_pressure0")?.name == "in_pressure0")
    }

    private func attributes(_ files: [String: String]) -> (String) -> String? { { files[$0] } }

    @Test func perAxisScaleWinsOverSharedScale() throws {
        let files = attributes(["in_magn_x_scale": "0.002\n", "in_magn_scale": "0.001\n"])
        let x = try IIOCalibration.resolve(for: #require(IIOChannelName(parsing: "in_magn_x")), attribute: files)
        let y = try IIOCalibration.resolve(for: #require(IIOChannelName(parsing: "in_magn_y")), attribute: files)
        #expect(x.scale == 0.002 && y.scale == 0.001)
        #expect(x.offset == 0)
    }

    @Test func offsetIsAddedBeforeScaling() throws {
        let files = attributes(["in_pressure_raw": "100\n", "in_pressure_offset": "-10\n", "in_pressure_scale": "0.5\n"])
        let channel = try #require(IIOChannelName(parsing: "in_pressure"))
        #expect(try IIOCalibration.polledValue(for: channel, attribute: files) == 45)  // (100 − 10) × 0.5, not 40
        #expect(IIOCalibration(offset: 3, scale: 2).apply(.signed(-5)) == -4)
        #expect(IIOCalibration().apply(.unsigned(7)) == 7)
    }

    @Test func inputIsPreferredOverRaw() throws {
        let channel = try #require(IIOChannelName(parsing: "in_pressure"))
        let both = attributes(["in_pressure_input": "101.325000\n", "in_pressure_raw": "1", "in_pressure_scale": "5"])
        #expect(try IIOCalibration.polledValue(for: channel, attribute: both) == 101.325)
        #expect(throws: IIOError.missingValue(channel: "in_pressure")) {
            try IIOCalibration.polledValue(for: channel, attribute: attributes([:]))
        }
        #expect(throws: IIOError.invalidAttribute(name: "in_pressure_scale", text: "abc")) {
            try IIOCalibration.polledValue(for: channel, attribute: attributes(["in_pressure_raw": "1", "in_pressure_scale": "abc\n"]))
        }
    }

    @Test func sysfsValues() throws {
        #expect(try IIOSysfs.double(" 0.000000598\n", attribute: "s") == 0.000000598)
        #expect(try IIOSysfs.double("-1.5", attribute: "s") == -1.5)
        #expect(try IIOSysfs.double("104.000000\n", attribute: "s") == 104)
        #expect(try IIOSysfs.int("3\n", attribute: "i") == 3)
        #expect(try IIOSysfs.bool("1\n", attribute: "e") && !IIOSysfs.bool("0", attribute: "e"))
        #expect(throws: IIOError.invalidAttribute(name: "s", text: "")) { try IIOSysfs.double("\n", attribute: "s") }
        #expect(throws: IIOError.invalidAttribute(name: "s", text: "nan")) { try IIOSysfs.double("nan", attribute: "s") }
    }

    @Test func samplingFrequencyList() throws {
        let list = try IIOSamplingFrequencies(parsing: "0 2 4 6 8\n")
        #expect(list == .list([0, 2, 4, 6, 8]))
        #expect(list.nearest(to: 5) == 6)  // tie between 4 and 6: the faster one
        #expect(list.nearest(to: 4.9) == 4)
        #expect(list.nearest(to: 100) == 8)
        let odr = try IIOSamplingFrequencies(parsing: "12.500000 26 52 104 208\n")
        #expect(odr.nearest(to: 50) == 52)
        #expect(odr.nearest(to: 1) == 12.5)
    }

    /// A polled device is set to the lowest rate that converts at least as often as it is read,
    /// where the nearest may be slower (120 Hz: nearest 104, at least 208).
    @Test func samplingFrequencyAtLeast() throws {
        let odr = try IIOSamplingFrequencies(parsing: "12.500000 26 52 104 208\n")
        #expect(odr.lowest(atLeast: 120) == 208)
        #expect(odr.nearest(to: 120) == 104)
        #expect(odr.lowest(atLeast: 104) == 104)
        #expect(odr.lowest(atLeast: 10) == 12.5)
        #expect(odr.lowest(atLeast: 1000) == 208)  // none is fast enough: the fastest
        // The MMA8452 lists its rates fastest first.
        let mma8452 = try IIOSamplingFrequencies(parsing: "800 400 200 100 50 12.5 6.25 1.56\n")
        #expect(mma8452.lowest(atLeast: 10) == 12.5)
        #expect(mma8452.lowest(atLeast: 60) == 100)
        #expect(IIOSamplingFrequencies.list([]).lowest(atLeast: 5) == nil)
    }

    @Test func samplingFrequencyRange() throws {
        let range = try IIOSamplingFrequencies(parsing: "[1 0.5 10]\n")
        #expect(range == .range(min: 1, step: 0.5, max: 10))
        #expect(range.nearest(to: 3.3) == 3.5)
        #expect(range.nearest(to: 50) == 10)
        #expect(range.nearest(to: 0) == 1)
        let offGrid = try IIOSamplingFrequencies(parsing: "[1 3 8]")
        #expect(offGrid.nearest(to: 8) == 7)  // 8 is the maximum but not on the grid
        let continuous = try IIOSamplingFrequencies(parsing: "[0.1 0 100]")
        #expect(continuous.nearest(to: 42.42) == 42.42)
        #expect(range.lowest(atLeast: 3.3) == 3.5)
        #expect(range.lowest(atLeast: 3.5) == 3.5)
        #expect(range.lowest(atLeast: 0.2) == 1)
        #expect(range.lowest(atLeast: 50) == 10)
        #expect(offGrid.lowest(atLeast: 5) == 7)
        #expect(offGrid.lowest(atLeast: 7.5) == 7)  // above the last step on the grid: the highest
        #expect(continuous.lowest(atLeast: 42.42) == 42.42)
        #expect(continuous.lowest(atLeast: 500) == 100)
        // 2.1 / 0.3 is 7.000000000000001 in binary: still 7 steps (2.1 Hz), not 8 (2.4 Hz).
        let thirds = IIOSamplingFrequencies.range(min: 0, step: 0.3, max: 3)
        #expect(thirds.lowest(atLeast: 2.1) == 7 * 0.3)
        for bad in ["", "\n", "[1 2]", "[a b c]", "[10 1 1]", "[1 -1 5]", "[1 2 3", "1 two 3"] {
            #expect(throws: IIOError.self, "\(bad)") { try IIOSamplingFrequencies(parsing: bad) }
        }
    }

    @Test func mountMatrix() throws {
        let matrix = try IIOMountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, -1\n")
        let rotated = matrix.apply(x: 1, y: 2, z: 3)
        #expect(rotated.x == 2 && rotated.y == 1 && rotated.z == -3)
        #expect(matrix.apply(MotionSample(timestamp: 5, x: 1, y: 2, z: 3)) == MotionSample(timestamp: 5, x: 2, y: 1, z: -3))
        #expect(matrix.text == "0, 1, 0; 1, 0, 0; 0, 0, -1")
        #expect(try IIOMountMatrix(parsing: "1,0,0;0,1,0;0,0,1") == .identity)
        let tilted = try IIOMountMatrix(parsing: "0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1")
        #expect(abs(tilted.apply(x: 1, y: 0, z: 0).y - 0.7071) < 1e-12)
        #expect(IIOMountMatrix(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]) == .identity)
        #expect(IIOMountMatrix(rows: [[1, 0], [0, 1]]) == nil)
        for bad in ["", "1, 0, 0; 0, 1, 0", "1, 0; 0, 1; 0, 0", "a, 0, 0; 0, 1, 0; 0, 0, 1", "1, 0, 0; 0, 1, 0; 0, 0, 1; 1"] {
            #expect(throws: IIOError.self, "\(bad)") { try IIOMountMatrix(parsing: bad) }
        }
    }

    @Test func unitConversions() {
        #expect(IIOUnits.recordedValue(0.5, for: .magnetometer) == 50)  // gauss → µT
        #expect(IIOUnits.recordedValue(9.81, for: .accelerometer) == 9.81)
        #expect(IIOUnits.recordedValue(0.1, for: .gyroscope) == 0.1)
        #expect(IIOUnits.hectopascals(fromKilopascals: 101.325) == 1013.25)
        #expect(IIOUnits.celsius(fromMillidegrees: 23_500) == 23.5)
        #expect(IIOUnits.microtesla(fromGauss: -0.25) == -25)
        #expect(IIOUnits.unixMilliseconds(fromNanoseconds: -1) == -1)
        #expect(IIOTimestampClock(parsing: "realtime\n")?.isWallClock == true)
        #expect(IIOTimestampClock(parsing: "boottime")?.isWallClock == false)
        #expect(IIOTimestampClock(parsing: "monotonic_raw") == .monotonicRaw)
        #expect(IIOTimestampClock(parsing: "sundial") == nil)
    }
}
