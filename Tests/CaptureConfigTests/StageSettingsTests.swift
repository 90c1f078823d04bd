import CaptureConfig
import CaptureCore
import CaptureRecorder
import CaptureSensors
import CaptureStorage
import CaptureSurface
import CaptureUpload
import CaptureWiring
import Foundation
import Testing

/// Each stage reads its own keys through a scoped reader (``SettingsReader``) and checks them
/// itself; a value it refuses names the file and line, the variable or the option, as a value
/// of the wrong type does.
@Suite struct StageSettingsTests {
    typealias Scratch = DeviceConfigurationTests.Scratch

    @Test func aValueTheStageRefusesNamesTheFileLineAndKey() throws {
        let scratch = Scratch()
        let path = scratch.write("data_dir: \(scratch.directory)/data\nsurface:\n  thresholds: BICYCLE=3,2,1\n")
        let error = #expect(throws: DeviceConfigurationError.self) { try DeviceConfiguration.forProcess([:], file: path) }
        #expect(error?.place == path)
        #expect(error?.line == 3)
        #expect(error?.key == "surface.thresholds")
        #expect(error?.description.hasPrefix("\(path):3: surface.thresholds: expected MODALITY=A,B,C items") == true)
        #expect(error?.description.hasSuffix(", not 'BICYCLE=3,2,1'") == true)
    }

    /// `fleet.*` (issue 44): basic authentication needs a user and its password file, and a
    /// bearer token goes without them.
    @Test func fleetAuthenticationIsOneWayAndWhole() throws {
        func fleet(_ yaml: String) throws -> FleetSettings {
            let scratch = Scratch()
            return try DeviceConfiguration.load(
                environment: ["CAPTURE_CONFIG": scratch.write("data_dir: \(scratch.directory)/data\nfleet:\n" + yaml), "HOME": "/nonexistent"]
            ).fleet()
        }
        let basic = try fleet("  push_url: https://push.example.org\n  username: box\n  password_file: /etc/capture/push\n")
        #expect(basic.pushURL == "https://push.example.org" && basic.username == "box" && basic.interval.seconds == 300)
        #expect(try fleet("  interval: 30s\n").pushURL == nil)
        for (yaml, key) in [
            ("  username: box\n", "fleet.username"), ("  password_file: /p\n", "fleet.password_file"),
            ("  username: box\n  password_file: /p\n  token_file: /t\n", "fleet.token_file"),
        ] {
            let error = #expect(throws: DeviceConfigurationError.self) { try fleet(yaml) }
            #expect(error?.key == key, "\(yaml)")
        }
        #expect(throws: DeviceConfigurationError.self) { try fleet("  interval: 0s\n") }
    }

    /// `indicator.leds` (issue 43): LED class names, from the file as a list, from the
    /// environment separated by commas; a path is not a name.
    @Test func theLEDsAreNamesOfTheLEDClass() throws {
        let scratch = Scratch()
        let file = scratch.write("data_dir: \(scratch.directory)/data\nindicator:\n  leds: [led0, capture-green]\n")
        let loaded = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": file, "HOME": "/nonexistent"])
        #expect(try loaded.indicator().leds == ["led0", "capture-green"])
        #expect(try loaded.recorder(resuming: nil).indicator.leds == ["led0", "capture-green"], "the recorder gets them whole")
        let fromEnvironment = try DeviceConfiguration.load(
            environment: ["CAPTURE_CONFIG": "/dev/null", "HOME": "/nonexistent", "CAPTURE_INDICATOR_LEDS": "led0, led1"])
        #expect(try fromEnvironment.indicator().leds == ["led0", "led1"])
        let path = scratch.write("data_dir: \(scratch.directory)/data\nindicator:\n  leds: [/sys/class/leds/led0]\n")
        let error = #expect(throws: DeviceConfigurationError.self) {
            try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path, "HOME": "/nonexistent"])
        }
        #expect(error?.key == "indicator.leds" && error?.line == 3, "\(String(describing: error))")
    }

    /// `button.*` (issue 43): the device, its key by name or number, the long press; a key that
    /// is neither is refused at its line.
    @Test func theButtonIsAKeyOfAnInputDevice() throws {
        let scratch = Scratch()
        let file = scratch.write(
            "data_dir: \(scratch.directory)/data\nbutton:\n  device: /dev/input/event3\n  key: KEY_PAGEDOWN\n  long_press: 3s\n")
        let loaded = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": file, "HOME": "/nonexistent"])
        let expected = ButtonSettings(device: "/dev/input/event3", key: 109, longPress: 3000)
        #expect(try loaded.button() == expected)
        #expect(try loaded.recorder(resuming: nil).button == expected, "the recorder gets it")
        let standard = try DeviceConfiguration.load(
            environment: ["CAPTURE_CONFIG": "/dev/null", "HOME": "/nonexistent", "CAPTURE_BUTTON_KEY": "0x100"])
        #expect(try standard.button() == ButtonSettings(key: 0x100), "no device, 2 s by default")
        let bad = scratch.write("data_dir: \(scratch.directory)/data\nbutton:\n  key: KEY_NOPE\n")
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": bad, "HOME": "/nonexistent"])
        let error = #expect(throws: DeviceConfigurationError.self) { try device.button() }
        #expect(error?.key == "button.key" && error?.line == 3, "\(String(describing: error))")
    }

    @Test func fromTheEnvironmentItNamesTheVariable() throws {
        let device = try DeviceConfiguration.load(
            environment: ["CAPTURE_CONFIG": "/dev/null", "HOME": "/nonexistent", "CAPTURE_SURFACE_THRESHOLDS": "CAR=1"])
        let error = #expect(throws: DeviceConfigurationError.self) { try device.surfaceThresholds() }
        #expect(error?.place == "$CAPTURE_SURFACE_THRESHOLDS")
        #expect(error?.line == nil)
        #expect(error?.kind == .badValue(found: "CAR=1"))
    }

    @Test func aKeyReadAsTheWrongKindIsAnErrorNotADefault() throws {
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": "/dev/null", "HOME": "/nonexistent"])
        let ride = device.settings(under: "ride")
        let wrongKind = #expect(throws: SettingsError.self) { try ride.duration("min_distance") }
        #expect(wrongKind?.key == "ride.min_distance")
        #expect(wrongKind?.place == "default")
        #expect(wrongKind?.expected == ConfigKey.minDistance.expected)
        let undeclared = #expect(throws: SettingsError.self) { try ride.bool("min_distanse") }
        #expect(undeclared?.found.contains("not declared") == true)
        #expect(undeclared?.key == "ride.min_distanse")
    }

    @Test func eachStageReadsItsOwnPrefix() throws {
        let scratch = Scratch()
        let path = scratch.write(
            """
            ride: { detect: auto, resume_within: 30s, min_distance: 1.5km }
            retention: { keep_uploaded_days: forever, drop_unsent: oldest }
            upload: { auto: true, min_waiting: 2 }
            surface: { thresholds: "CAR=0.5,1,2" }
            collector: { payload_limit: 10M }
            """)
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path, "HOME": scratch.directory])
        #expect(
            try device.ride()
                == RideSettings(detect: .auto, resumeWithin: 30_000, minDistance: 1500, payloadLimit: 10 * 1_048_576))
        #expect(try device.retention() == RetentionPolicy(keepUploadedDays: nil, dropUnsent: .oldest))
        #expect(try device.delivery() == DeliveryPolicy(automatic: true, minWaiting: 2))
        #expect(try device.surfaceThresholds().bounds(for: "car") == [0.5, 1, 2])
        #expect(try device.surfaceThresholds().bounds(for: "bicycle") == SurfaceThresholds.standard.bounds(for: "bicycle"))
    }

    /// The recorder process gets its whole configuration on its command line and reads no file:
    /// the delivery policy and the log level travel with the ride rules and the retention.
    @Test func theRecorderConfigurationCarriesEverythingTheRecorderNeeds() throws {
        let scratch = Scratch()
        let path = scratch.write(
            "log_level: info\nupload: { auto: true }\nride: { detect: auto }\nretention: { max_store_size: 64M }\n"
                + "button: { device: /dev/input/event3, key: KEY_ENTER }\n")
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path, "HOME": scratch.directory])
        let configuration = try device.recorder(
            modality: nil, flushInterval: nil, sourceOptions: SourceOptions(), recordTrace: nil, maximumSize: nil,
            gnssTime: .auto)
        #expect(configuration.deliverAutomatically)
        #expect(configuration.logLevel == .info)
        #expect(configuration.ride.detect == .auto)
        #expect(configuration.retention?.maxStoreSize == ByteSize(parsing: "64M"))
        #expect(configuration.button == ButtonSettings(device: "/dev/input/event3", key: 28))
        let decoded = try JSONDecoder().decode(RecorderConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(decoded == configuration)
    }
}
