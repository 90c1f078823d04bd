import CaptureCore
import Foundation
import Glibc
import CaptureTestSupport
import Testing

@testable import CaptureSensors

@Suite("--source specs through the source registry")
struct SourceRegistryTests {
    let registry = SourceRegistry.standard
    let cwd = FileManager.default.currentDirectoryPath

    /// A trace file with a valid header, in a fresh temporary directory.
    func traceFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-spec-\(UUID().uuidString).trace").path
        try "\(TraceFormat.magic)\nacc 1000 0 0 9.81\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func specsSplitAtTheFirstColon() throws {
        #expect(registry.kinds.map(\.name) == ["trace", "iio", "gpsd", "nmea"])
        #expect(try registry.parse("trace:rides/a:b.trace").kind.name == "trace")
        #expect(try registry.parse("trace:rides/a:b.trace").argument == "rides/a:b.trace")
        #expect(try registry.parse("iio:iio:device0@200").argument == "iio:device0@200")
        #expect(try registry.parse("gpsd").kind.name == "gpsd")
        #expect(try registry.parse("gpsd").argument == nil)
        #expect(try registry.parse("nmea:/dev/ttyACM0").argument == "/dev/ttyACM0")
    }

    @Test func unknownKindsAreRefusedWithTheKnownSyntaxes() {
        let syntaxes = ["trace:FILE", "iio:iio:deviceN[@HZ]", "gpsd[:HOST:PORT]", "nmea:PATH"]
        #expect(registry.syntaxes == syntaxes)
        #expect(throws: SourceError.unknownKind(spec: "gps:x", syntaxes: syntaxes)) { try registry.makeSource("gps:x") }
        #expect(throws: SourceError.unknownKind(spec: "", syntaxes: syntaxes)) { try registry.makeSource("") }
        #expect(throws: SourceError.unknownKind(spec: "TRACE:x", syntaxes: syntaxes)) { try registry.makeSource("TRACE:x") }
    }

    @Test func malformedSpecsOfKnownKindsSayWhatIsExpected() {
        #expect(throws: SourceError.malformed(spec: "trace", syntax: "trace:FILE")) { try registry.makeSource("trace") }
        #expect(throws: SourceError.malformed(spec: "nmea:", syntax: "nmea:PATH")) { try registry.makeSource("nmea:") }
        #expect(throws: SourceError.malformed(spec: "iio", syntax: "iio:iio:deviceN[@HZ]")) { try registry.makeSource("iio") }
        #expect(throws: SourceError.badAddress(spec: "gpsd:host:port")) { try registry.makeSource("gpsd:host:port") }
        #expect(throws: SourceError.badRate(spec: "iio:iio:device0@fast")) { try registry.makeSource("iio:iio:device0@fast") }
        #expect(throws: SourceError.badRate(spec: "iio:iio:device0@0")) { try registry.makeSource("iio:iio:device0@0") }
        #expect(throws: SourceError.badRate(spec: "iio:iio:device0@100001")) { try registry.makeSource("iio:iio:device0@100001") }
        #expect(throws: SourceError.notADeviceDirectory(path: "/tmp/iio:device0")) { try registry.makeSource("iio:/tmp/iio:device0") }
        #expect(throws: SourceError.noReceiver(path: "/nonexistent/gnss0")) { try registry.makeSource("nmea:/nonexistent/gnss0") }
    }

    @Test func theRateRangeIsDecidedOnce() {
        #expect(!SourceOptions.isAcceptable(rate: 0))
        #expect(!SourceOptions.isAcceptable(rate: -1))
        #expect(!SourceOptions.isAcceptable(rate: .nan))
        #expect(!SourceOptions.isAcceptable(rate: 100_000.5))
        #expect(SourceOptions.isAcceptable(rate: 0.1))
        #expect(SourceOptions.isAcceptable(rate: 100_000))
    }

    @Test func traceSpecsAreCheckedNow() throws {
        let path = try traceFile()
        defer { unlink(path) }
        let source = try registry.makeSource("trace:" + path)
        #expect(source is LiveTraceSource)
        #expect(source.name == "trace:" + path)
        #expect(throws: SourceError.trace(.cannotOpen(path: "/nonexistent.trace", reason: "No such file or directory"))) {
            try registry.makeSource("trace:/nonexistent.trace")
        }
        let notATrace = path + ".txt"
        try "hello\n".write(toFile: notATrace, atomically: true, encoding: .utf8)
        defer { unlink(notATrace) }
        #expect {
            try registry.makeSource("trace:" + notATrace)
        } throws: { error in
            guard case .trace(.malformed) = error as? SourceError else { return false }
            return true
        }
    }

    @Test func normalisingMakesPathsAbsoluteAndLeavesTheRest() {
        #expect(registry.normalized("trace:rides/ride.trace") == "trace:" + SourcePath.absolute("rides/ride.trace"))
        #expect(SourcePath.absolute("rides/ride.trace") == URL(fileURLWithPath: cwd).appendingPathComponent("rides/ride.trace").path)
        #expect(registry.normalized("trace:/abs/../abs/ride.trace") == "trace:/abs/ride.trace")
        #expect(registry.normalized("nmea:dev/gnss0") == "nmea:" + SourcePath.absolute("dev/gnss0"))
        #expect(registry.normalized("gpsd") == "gpsd")
        #expect(registry.normalized("gpsd:10.0.0.2:2947") == "gpsd:10.0.0.2:2947")
        #expect(registry.normalized("iio:iio:device0@200") == "iio:iio:device0@200")
        #expect(registry.normalized("gps:relative/path") == "gps:relative/path")
    }

    @Test func iioSpecsFindTheDeviceAndAnnounceAChosenRate() throws {
        let root = FakeSysfs()
        root.write("iio:device0", ["name": "bmi160", "in_accel_x_raw": "1", "in_accel_y_raw": "2", "in_accel_z_raw": "3",
            "in_accel_scale": "0.5", "sampling_frequency_available": "25 50 100 200"])
        root.write("iio:device1", ["name": "odd", "in_temp_raw": "1"])
        let options = SourceOptions(sysfsRoot: root.path)
        let plain = try registry.makeSource("iio:iio:device0", options: options)
        #expect(plain.name == "iio:" + root.deviceDirectory("iio:device0"))
        let selection = try registry.select(["iio:iio:device0@120"], options: options)
        #expect(selection.specs == ["iio:iio:device0@120"])
        #expect(selection.announcements.count == 1)
        // Polled (no buffer) at the rate asked; the device has no sampling_frequency to set.
        #expect(selection.announcements.first?.summary.contains("polled, rate 120 Hz (asked 120)") == true)
        // The name a recorder stores finds the device again, under any working directory and root.
        #expect(try registry.makeSource(plain.name).name == plain.name)
        #expect(throws: SourceError.notUseful(id: "iio:device1", name: "odd")) {
            try registry.makeSource("iio:iio:device1", options: options)
        }
        #expect(throws: SourceError.noDevice(id: "iio:device7", directory: root.path + "/sys/bus/iio/devices")) {
            try registry.makeSource("iio:iio:device7", options: options)
        }
        root.write("iio:device2", ["name": "broken", "in_accel_x_raw": "1", "in_accel_y_raw": "2", "in_accel_z_raw": "3",
            "in_accel_scale": "fast"])
        #expect {
            try registry.makeSource("iio:iio:device2", options: options)
        } throws: { error in
            guard case .unreadableDevice(let id, _) = error as? SourceError else { return false }
            return id == "iio:device2"
        }
    }

    @Test func discoveryAsksEveryKindInOrder() throws {
        let root = FakeSysfs()
        root.write("iio:device0", ["name": "bmi160", "in_accel_x_raw": "1", "in_accel_y_raw": "2", "in_accel_z_raw": "3",
            "in_accel_scale": "0.5"])
        root.write("iio:device1", ["name": "odd", "in_temp_raw": "1"])
        #expect(FileManager.default.createFile(atPath: root.path + "/dev/ttyACM0", contents: Data()))
        let options = SourceOptions(sysfsRoot: root.path)
        // gpsd is asked at its default address; a test machine may run one.
        let gpsdAnswers = GPSDSource().isReachable()
        let found = registry.discover(options: options)
        #expect(found.first?.spec == "iio:" + root.deviceDirectory("iio:device0"))
        #expect(found.first?.deliversFixes == false)
        #expect(found.last?.spec == (gpsdAnswers ? GPSDSource().name : "nmea:" + root.path + "/dev/ttyACM0"))
        #expect(found.count == 2)
        #expect(try registry.select([], options: options).specs == found.map(\.spec))
        let empty = FakeSysfs()
        if !gpsdAnswers {
            #expect(throws: SourceError.nothingFound(sysfsRoot: empty.path, gpsd: GPSDSource.defaultAddress)) {
                try registry.select([], options: SourceOptions(sysfsRoot: empty.path))
            }
        }
    }

    /// A new kind is one type and one registration.
    struct EchoKind: SourceKind {
        let name = "echo"
        let syntax = "echo:NAME"
        struct Echo: SampleSource {
            var name: String
            func run(into sink: any SampleSink) throws {}
        }
        func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource {
            Echo(name: "echo:" + (argument ?? "-"))
        }
        func discover(options: SourceOptions, found: [DiscoveredSource]) -> [DiscoveredSource] {
            [DiscoveredSource(spec: "echo:found-after-\(found.count)", summary: "an echo")]
        }
    }

    @Test func aNewKindIsOneRegistration() throws {
        let extended = SourceRegistry(SourceRegistry.standard.kinds + [EchoKind()])
        #expect(try extended.makeSource("echo:hello").name == "echo:hello")
        #expect(extended.syntaxes.last == "echo:NAME")
        #expect(extended.normalized("echo:relative") == "echo:relative")
        #expect(extended.discover(options: SourceOptions(sysfsRoot: FakeSysfs().path)).last?.summary == "an echo")
        #expect(throws: SourceError.self) { try SourceRegistry.standard.makeSource("echo:hello") }
    }

    @Test func theSensorSurveyListsDevicesAndGNSSNodes() throws {
        let root = FakeSysfs()
        root.write("iio:device0", ["name": "bmp280", "in_pressure_input": "101.3", "sampling_frequency": "-5"])
        #expect(FileManager.default.createFile(atPath: root.path + "/dev/gnss0", contents: Data()))
        let survey = SensorSurvey(sysfsRoot: root.path, gpsd: GPSDSource(host: "127.0.0.1", port: 1))
        #expect(survey.sysfsRoot == root.path)
        #expect(survey.iio.map(\.id) == ["iio:device0"])
        #expect(survey.iio.first?.sensors == ["prs"])
        #expect(survey.iio.first?.currentRate == nil)
        #expect(survey.iio.first?.source == "iio:" + root.deviceDirectory("iio:device0"))
        #expect(survey.gnss.map(\.source) == ["gpsd:127.0.0.1:1", "nmea:" + root.path + "/dev/gnss0"])
        #expect(survey.gnss.first?.state == .notAnswering)
        let json = String(decoding: try JSONEncoder().encode(survey.gnss.first), as: UTF8.self)
        #expect(json.contains(#""state":"not answering""#))
    }
}
