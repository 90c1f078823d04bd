import CaptureCollector
import CaptureConfig
import CaptureWiring
import CaptureDoctor
import CaptureSensors
import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// `capture doctor`'s checks in-process: a configuration file and a data directory in a
/// temporary directory, the collector in-process on a loopback port.
final class DoctorDevice: Sendable {
    static let token = "doctor-token"
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
    var data: String { root + "/data" }
    var config: String { root + "/config.yaml" }
    var tokenFile: String { root + "/token" }

    init(token: String = DoctorDevice.token) throws {
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        chmod(data, 0o700)
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The configuration of `yaml` (after `data_dir`), loaded as the command line loads it.
    func device(_ yaml: String) throws -> DeviceConfiguration {
        try ("data_dir: \(data)\n" + yaml + "\n").write(toFile: config, atomically: true, encoding: .utf8)
        return try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": config, "HOME": root])
    }

    /// The checks by name, in order.
    static func checks(_ report: DoctorReport) -> [String: DoctorCheck] {
        Dictionary(report.checks.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// A doctor for the in-process collector: it answers on this process's threads, which a loaded
/// machine (load 8–10) can keep from it for seconds, so its questions get a generous 60 s
/// rather than the 5 s a real collector gets (issue 46). A down collector is still said at once:
/// the connection is refused.
func patientDoctor(seconds: Double, describe: @escaping @Sendable (any Error) -> String = { "\($0)" }) -> Doctor {
    var doctor = Doctor(seconds: seconds, describe: describe)
    doctor.collectorTimeout = 60
    return doctor
}

/// Runs `body` with the base URL of an in-process collector that takes ``DoctorDevice/token``.
func withCollector(_ body: @Sendable (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-collector-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let collector = try await Collector(.init(dataDirectory: directory, token: DoctorDevice.token), logger: Logger(label: "doctor-tests"))
    try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.live) { client in
        try await body("http://127.0.0.1:\(try #require(client.port))/")
    }
}

@Suite struct DoctorTests {
    @Test func aHealthyDevicePassesEveryCheckInOrder() async throws {
        let setup = try DoctorDevice()
        _ = try Store(directory: setup.data)
        let trace = "trace:" + Repository.fixture("bicycle.trace")
        try await withCollector { url in
            let device = try setup.device(
                """
                collector: { url: "\(url)", token_file: \(setup.tokenFile) }
                capture: { sources: ["\(trace)"] }
                retention: { max_store_size: 64M }
                """)
            let report = await patientDoctor(seconds: 0.5).run(device, configuration: Doctor.configuration(device))
            #expect(
                report.checks.map(\.check) == [
                    "configuration", "data directory", "runtime dir", "store", "recorder", "upload sessions", "disk", "source \(trace)",
                    "collector", "token",
                ])
            for check in report.checks { #expect(check.status == .pass, "\(check)") }
            #expect(report.passed == 10 && report.warnings == 0 && report.failed == 0)
            let checks = DoctorDevice.checks(report)
            #expect(checks["configuration"]?.detail == "\(setup.config) read")
            #expect(checks["store"]?.detail.hasPrefix("quick_check ok") == true)
            #expect(checks["token"]?.detail == "accepted (\(setup.tokenFile))")
            // BASE/KEY: KEY is 16 hex digits of the data directory's real path's SHA-256.
            let runtime = try #require(checks["runtime dir"]?.detail.split(separator: " ").first)
            #expect(runtime.split(separator: "/").last?.count == 16, "\(runtime)")
            #expect(runtime.hasSuffix("/" + String(ContentDigest.sha256Hex(Array(setup.data.utf8)).prefix(16))))
            let source = try #require(checks["source \(trace)"]?.detail)
            #expect(source.contains("acc ") && source.contains("fix "), "\(source)")
        }
    }

    @Test func eachProblemIsNamedWithWhatToDo() async throws {
        let setup = try DoctorDevice(token: "not-the-token")
        // A data directory capture made (it holds a store) that others can read: only for such a
        // directory does the doctor advise a chmod.
        _ = try Store(directory: setup.data)
        chmod(setup.data, 0o755)
        // What a recorder of an older capture left in the data directory.
        for name in ["control.sock", "recorder.pid"] { #expect(FileManager.default.createFile(atPath: setup.data + "/" + name, contents: nil)) }
        try await withCollector { url in
            let device = try setup.device(
                """
                collector: { url: "\(url)", token_file: \(setup.tokenFile) }
                capture: { sources: ["trace:/nonexistent.trace"] }
                retention: { max_store_size: 4000000G }
                """)
            let report = await patientDoctor(seconds: 0).run(device, configuration: Doctor.configuration(device))
            let checks = DoctorDevice.checks(report)
            #expect(Set(report.checks.filter { $0.status == .fail }.map(\.check)) == ["data directory", "disk", "source trace:/nonexistent.trace", "token"])
            #expect(checks["data directory"]?.advice == "run: chmod 700 \(setup.data)")
            #expect(checks["disk"]?.advice == "lower retention.max_store_size or free space")
            #expect(checks["token"]?.detail == "refused by the collector (401)")
            // The remedy without a command; `capture doctor` words it with one (`advise`).
            #expect(checks["token"]?.advice == "renew the token in \(setup.tokenFile)")
            #expect(checks["store"]?.status == .pass)
            #expect(report.failed == 4)
            #expect(checks["runtime dir"]?.status == .warn)
            #expect(checks["runtime dir"]?.detail.hasPrefix("control.sock, recorder.pid in \(setup.data) left by an older capture") == true)
            #expect(
                checks["runtime dir"]?.advice
                    == "once no older capture runs, remove them: rm \(setup.data)/control.sock \(setup.data)/recorder.pid")
        }
    }

    @Test func aCollectorThatDoesNotAnswerIsNamedAndItsTokenFileStillChecked() async throws {
        let setup = try DoctorDevice()
        let port = try Loopback.freePort()
        let sources = "capture: { sources: [\"trace:\(Repository.fixture("car.trace"))\"] }"
        let device = try setup.device("collector: { url: \"http://127.0.0.1:\(port)/\" }\n" + sources)
        let report = await Doctor(seconds: 0).run(device, configuration: Doctor.configuration(device))
        let checks = DoctorDevice.checks(report)
        #expect(checks["collector"]?.status == .fail)
        #expect(checks["collector"]?.detail.contains("does not answer") == true)
        // Issue 46: a box set up offline is told about its token file all the same.
        #expect(checks["token"]?.status == .fail, "\(report.checks)")
        let withToken = try setup.device("collector: { url: \"http://127.0.0.1:\(port)/\", token_file: \(setup.tokenFile) }\n" + sources)
        let offline = DoctorDevice.checks(await Doctor(seconds: 0).run(withToken, configuration: Doctor.configuration(withToken)))
        #expect(offline["token"] == .pass("token", "read from \(setup.tokenFile); not tried, the collector does not answer"))
    }

    @Test func noCollectorConfiguredPassesAndAMissingTokenIsWordedByTheFrontEnd() async throws {
        let setup = try DoctorDevice()
        let none = try setup.device("capture: { sources: [\"trace:\(Repository.fixture("car.trace"))\"] }")
        let report = await Doctor(seconds: 0).run(none, configuration: Doctor.configuration(none))
        #expect(DoctorDevice.checks(report)["collector"] == .pass("collector", "none configured (collector.url): nothing is delivered"))

        try await withCollector { url in
            let device = try setup.device("collector: { url: \"\(url)\" }\ncapture: { sources: [\"trace:\(Repository.fixture("car.trace"))\"] }")
            let doctor = patientDoctor(seconds: 0, describe: { _ in "worded by the front end" })
            let checks = DoctorDevice.checks(await doctor.run(device, configuration: Doctor.configuration(device)))
            #expect(checks["collector"]?.status == .pass)
            #expect(checks["token"]?.detail == "worded by the front end")
        }
    }

    @Test func aBrokenConfigurationIsTheFirstCheck() {
        struct Broken: Error, CustomStringConvertible { var description: String { "config.yaml: unknown key colector" } }
        let check = Doctor().configuration(failed: Broken())
        #expect(check.status == .fail && check.detail == "config.yaml: unknown key colector")
        #expect(check.advice?.contains("docs/configuration.md") == true)
        #expect(Doctor(advise: { "worded: \($0)" }).configuration(failed: Broken()).advice == "worded: fix the value it names (docs/configuration.md)")
    }

    /// A u-blox module on a pty at its factory setting (NMEA fixes once a second): the source
    /// check warns, names the module (asked by MON-VER after the watch) and says to set it up.
    @Test func aUBloxModuleAtItsFactoryRateIsNamedWithTheSetUp() async throws {
        let module = UBloxModule(
            software: "ROM CORE 3.01 (107888)", hardware: "00080000", extensions: ["FWVER=SPG 3.01", "PROTVER=18.00", "MOD=NEO-M8N"])
        let fake = try FakeUBloxReceiver(monVer: module.monVerPayload)
        defer { fake.stop() }
        let stop = Atomic(false)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            while !stop.load(ordering: .relaxed) {
                fake.send(Self.epoch(at: Date()))
                usleep(1_000_000)
            }
            finished.signal()
        }.start()
        defer {
            stop.store(true, ordering: .relaxed)
            finished.wait()
        }
        let setup = try DoctorDevice()
        let device = try setup.device("capture: { sources: [\"nmea:\(fake.path)\"] }")
        let report = await Doctor(seconds: 2.5).run(device, configuration: Doctor.configuration(device))
        let check = try #require(DoctorDevice.checks(report)["source nmea:\(fake.path)"])
        #expect(check.status == .warn, "\(check)")
        #expect(check.detail.contains("NEO-M8N (SPG 3.01, protocol 18.00) at about 1 fix/s"), "\(check)")
        #expect(check.advice == DoctorRemedy.setUpReceiver(fake.path).description)
        #expect(fake.received.map(\.kind) == [0x0A04])
    }

    /// An RMC and a GGA at `date` (UTC), with their checksums.
    static func epoch(at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let time = String(format: "%02d%02d%02d.00", c.hour!, c.minute!, c.second!)
        let day = String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100)
        return [
            "GPRMC,\(time),A,5103.0240,N,01344.2380,E,10.0,90.0,\(day),,,A",
            "GPGGA,\(time),5103.0240,N,01344.2380,E,1,08,0.9,112.0,M,46.0,M,,",
        ].map { body in "$\(body)*" + String(format: "%02X", body.utf8.reduce(UInt8(0), ^)) + "\r\n" }.joined()
    }

    @Test func theDoctorsOwnWordingNamesNoCommand() {
        let remedies: [DoctorRemedy] = [
            .fixConfiguration, .inspectUnopenableStore, .finishInterrupted, .resumeUploads, .retryFailedUploads, .connectSensor,
            .checkSourceSpec, .checkDevicePermissions, .checkDeviceDelivers, .pickAvailableRate, .credentials(.logIn),
            .credentials(.renewToken(file: "/t")), .setUpReceiver("/dev/ttyACM0"),
        ]
        for remedy in remedies { #expect(!remedy.description.contains("capture "), "\(remedy)") }
    }
}
