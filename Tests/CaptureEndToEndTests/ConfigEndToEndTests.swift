import CaptureRecorder
import CaptureSensors
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The configuration file through the built binary: `capture config`, the precedence of flags,
/// environment and file, exit 78 with one line for every kind of bad configuration (and nothing
/// started), and the systemd units.
@Suite struct ConfigEndToEndTests {
    /// A scratch directory with a data directory and a config file; every run gets a controlled
    /// environment (no inherited CAPTURE_* and an XDG_CONFIG_HOME of its own).
    final class Device {
        let root: String
        var data: String { root + "/data" }
        var config: String { root + "/config.yaml" }

        init() {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-config-e2e-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        func write(_ text: String, to path: String? = nil, mode: mode_t = 0o644) {
            let path = path ?? config
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            chmod(path, mode)
        }

        /// Runs `capture ARGS` with `environment` on top of PATH, HOME and XDG_CONFIG_HOME only,
        /// in `directory` if one is given.
        func run(_ arguments: [String], _ environment: [String: String] = [:], in directory: String? = nil) throws
            -> Program.Result
        {
            var variables = [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": root + "/home",
                "XDG_CONFIG_HOME": root + "/xdg",
            ]
            variables.merge(environment) { _, new in new }
            let assignments = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + Program.runtimeDirectoryVariable
            let chdir = directory.map { ["-C", $0] } ?? []
            return try Program.run("/usr/bin/env", ["-i"] + chdir + assignments + [CLI.executable] + arguments)
        }

        func json(_ arguments: [String], _ environment: [String: String] = [:]) throws -> [String: [String: Any]] {
            let result = try run(arguments + ["--json"], environment)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            var settings: [String: [String: Any]] = [:]
            for row in object?["settings"] as? [[String: Any]] ?? [] { settings[row["key"] as? String ?? ""] = row }
            return settings
        }
    }

    @Test func configShowsEveryValueWithItsOriginAndNoSecret() throws {
        let device = Device()
        let token = device.root + "/token"
        device.write("s3cr3t-token-value\n", to: token, mode: 0o600)
        device.write("""
            data_dir: \(device.data)
            collector:
              url: https://file.example/api/v4
              token_file: \(token)
            capture: { modality: CAR, flush_interval: 2s }
            upload: { max_age: 1h }
            """)
        let environment = ["CAPTURE_CONFIG": device.config, "CAPTURE_CAPTURE_MODALITY": "WALKING"]
        let settings = try device.json(["config", "--log-level", "info"], environment)
        #expect(settings.count == 40)  // every key of docs/configuration.md
        #expect(settings["log_level"]?["value"] as? String == "info")
        #expect(settings["log_level"]?["source"] as? String == "flag")
        #expect(settings["log_level"]?["origin"] as? String == "--log-level")
        #expect(settings["capture.modality"]?["value"] as? String == "WALKING")
        #expect(settings["capture.modality"]?["origin"] as? String == "$CAPTURE_CAPTURE_MODALITY")
        #expect(settings["capture.flush_interval"]?["value"] as? String == "2s")
        #expect(settings["capture.flush_interval"]?["origin"] as? String == "\"capture.flush_interval\" in \(device.config)")
        #expect(settings["collector.token_file"]?["value"] as? String == token)
        #expect(settings["collector.retry_budget"]?["source"] as? String == "default")
        #expect(settings["upload.max_age"]?["environment"] as? String == "CAPTURE_UPLOAD_MAX_AGE")

        let text = try device.run(["config"], environment)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("configuration file: \(device.config)"))
        #expect(text.stdout.contains("$CAPTURE_CAPTURE_MODALITY"))
        for output in [text.stdout, try device.run(["config", "--json"], environment).stdout] {
            #expect(!output.contains("s3cr3t"))
        }
    }

    /// `capture config`, text and JSON, byte for byte against fixtures/golden/config.txt and
    /// config.json (`scripts/update-goldens`): every kind of value and of origin. It runs where
    /// the file is, so that no temporary path is printed.
    @Test(arguments: ["txt", "json"])
    func configMatchesTheGolden(kind: String) throws {
        let device = Device()
        try FileManager.default.copyItem(atPath: Repository.fixture("config.yaml"), toPath: device.config)
        let environment = [
            "CAPTURE_CONFIG": "config.yaml", "CAPTURE_HOME": "/var/lib/capture",
            "CAPTURE_UPLOAD_URL": "https://collector.example/api/v4", "CAPTURE_CAPTURE_MODALITY": "WALKING",
        ]
        let result = try device.run(
            ["config", "--log-level", "debug"] + (kind == "json" ? ["--json"] : []), environment, in: device.root)
        #expect(result.status == 0, "\(result.stderr)")
        let golden = try String(contentsOfFile: Repository.fixture("golden/config.\(kind)"), encoding: .utf8)
        #expect(
            result.stdout == golden,
            "capture config differs from fixtures/golden/config.\(kind); if intended, run scripts/update-goldens")
    }

    @Test func dataDirectoryFromTheFileAppliesToEveryCommand() throws {
        let device = Device()
        device.write("data_dir: \(device.data)\n")
        let result = try device.run(["replay", Repository.fixture("bicycle.trace"), "--json"], ["CAPTURE_CONFIG": device.config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: device.data + "/capture.sqlite"))
        // $CAPTURE_HOME beats the file, --data-dir beats both.
        func count(_ arguments: [String], _ environment: [String: String]) throws -> Int {
            let result = try device.run(["list", "--json"] + arguments, environment)
            #expect(result.status == 0, "\(result.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any])?.count ?? -1
        }
        #expect(try count([], ["CAPTURE_CONFIG": device.config]) == 1)
        #expect(try count([], ["CAPTURE_CONFIG": device.config, "CAPTURE_HOME": device.root + "/other"]) == 0)
        #expect(try count(["--data-dir", device.data], ["CAPTURE_CONFIG": device.config, "CAPTURE_HOME": device.root + "/other"]) == 1)
    }

    /// What capture-record.service runs: killed like a crash and started again, it continues
    /// the same measurement on a new track instead of refusing or starting another.
    @Test func foregroundContinuesAnInterruptedMeasurement() throws {
        let device = Device()
        let arguments = [
            "-i", "PATH=/usr/bin:/bin", "HOME=\(device.root)/home", "CAPTURE_CONFIG=/dev/null",
        ] + Program.runtimeDirectoryVariable + [
            CLI.executable, "start",
            "--foreground", "--continue-interrupted", "--data-dir", device.data, "--loop", "--flush-interval", "0.1",
            "--source", "trace:" + Repository.fixture("bicycle.trace"),
        ]
        func status() throws -> [String: Any] {
            let result = try device.run(["status", "--json", "--data-dir", device.data], ["CAPTURE_CONFIG": "/dev/null"])
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }
        func committed() throws -> Int {
            (try status()["committed"] as? [String: Any])?["accelerometer"] as? Int ?? 0
        }
        func waitFor(_ condition: () throws -> Bool) rethrows -> Bool {
            for _ in 0..<300 {
                if try condition() { return true }
                usleep(50_000)
            }
            return false
        }
        let first = try Subprocess(arguments, bytes: [], executable: "/usr/bin/env")
        defer { first.stop() }
        #expect(try waitFor { try committed() > 0 })
        kill(first.pid, SIGKILL)
        _ = first.wait()
        let before = try committed()
        let second = try Subprocess(arguments, bytes: [], executable: "/usr/bin/env")
        defer { second.stop() }
        #expect(try waitFor { try committed() > before }, "\(second.stderr) \((try? status()) ?? [:])")
        let state = try status()
        #expect(state["measurement"] as? Int == 1, "\(state)")
        let stopped = try device.run(["stop", "--data-dir", device.data], ["CAPTURE_CONFIG": "/dev/null"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(second.wait() == 0, "\(second.stderr)")
        #expect(second.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(second.stdout)")
        let list = try device.run(["list", "--json", "--data-dir", device.data], ["CAPTURE_CONFIG": "/dev/null"])
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count == 1)
    }

    /// A configuration file broken while a recorder runs must not keep anyone from reaching it:
    /// status, pause, resume, modality and stop warn in one line and go on; start still refuses.
    @Test func aBrokenFileIsAWarningForTheCommandsThatReachARecorder() throws {
        let device = Device()
        let environment = ["CAPTURE_CONFIG": device.config]
        let start = ["start", "--loop", "--source", "trace:" + Repository.fixture("bicycle.trace"), "--data-dir", device.data]
        device.write("log_level: warning\n")
        let started = try device.run(start, environment)
        #expect(started.status == 0, "\(started.stderr)")
        // Should `stop` fail, the recorder is still ended, by its pid.
        defer {
            if let pid = CLI.recorderPID(dataDirectory: device.data) { kill(pid, SIGKILL) }
        }
        device.write("collector:\n  urll: https://x.example\n")
        for command in [["status"], ["pause"], ["resume"], ["modality", "CAR"], ["stop"]] {
            let result = try device.run(command + ["--data-dir", device.data], environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("capture: warning: \(device.config):") }
            #expect(warnings.count == 1, "\(command): \(result.stderr)")
            #expect(warnings.first?.contains("unknown key 'collector.urll'") == true, "\(command): \(result.stderr)")
        }
        let refused = try device.run(start, environment)
        #expect(refused.status == 78, "\(refused.stderr)")
        let list = try device.run(["list", "--json", "--data-dir", device.data], ["CAPTURE_CONFIG": "/dev/null"])
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.first?["status"] as? String == "finished", "\(list.stdout)")
    }

    /// The recorder process is handed its whole configuration once (issue 48, item 2): a file
    /// that says otherwise by the time it starts changes nothing. Before, it took the ride rules
    /// and the retention from the file again (and, with the file unreadable, ran without them).
    @Test func theRecorderProcessTakesItsRideRulesFromItsCommandLineNotTheFile() throws {
        let device = Device()
        let sysfs = try DeviceEndToEndTests.fakeRoot()
        defer { sysfs.remove() }
        device.write("ride:\n  detect: \"off\"\n")
        var configuration = RecorderConfiguration(
            directory: device.data, sources: ["iio:iio:device0"], sourceOptions: SourceOptions(sysfsRoot: sysfs.path))
        configuration.ride.detect = .auto
        let json = String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self)
        let recorder = try Subprocess(
            ["-i", "PATH=/usr/bin:/bin", "HOME=\(device.root)/home", "CAPTURE_CONFIG=\(device.config)"] + Program.runtimeDirectoryVariable
                + [CLI.executable, "_record", "--data-dir", device.data, "--configuration", json],
            bytes: [], executable: "/usr/bin/env")
        defer { recorder.stop() }
        var state: String?
        for _ in 0..<200 where state == nil {
            usleep(50_000)
            let result = try device.run(["status", "--json", "--data-dir", device.data], ["CAPTURE_CONFIG": "/dev/null"])
            let status = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            state = (status?["ride"] as? [String: Any])?["state"] as? String ?? (status?["recorder"] != nil ? "no ride rules" : nil)
        }
        #expect(state == "armed", "\(recorder.stderr)")
    }

    @Test func theXDGFileIsFoundWithoutCaptureConfig() throws {
        let device = Device()
        try FileManager.default.createDirectory(atPath: device.root + "/xdg/capture", withIntermediateDirectories: true)
        device.write("log_level: debug\n", to: device.root + "/xdg/capture/config.yaml")
        let settings = try device.json(["config"])
        #expect(settings["log_level"]?["origin"] as? String == "\"log_level\" in \(device.root)/xdg/capture/config.yaml")
    }

    /// Each class of error: one line on stderr with the file, the key and what is expected;
    /// exit 78; and nothing started (no store created, no recorder).
    @Test(arguments: [
        ("collector:\n  urll: https://x.example\n", "unknown key 'collector.urll'"),
        ("upload: { auto: maybe }\n", "upload.auto: expected true or false, not 'maybe'"),
        ("upload: { max_age: soon }\n", "upload.max_age: expected a duration"),
        ("retention: { max_store_size: huge }\n", "retention.max_store_size: expected a size"),
        ("privacy:\n  zones: [ { latitude: 91, longitude: 0, radius: 10 } ]\n", "privacy.zones[0]: expected"),
        ("capture: { modality: HOVERCRAFT }\n", "capture.modality: expected a modality"),
        ("capture: { sources: [warp:/x] }\n", "capture.sources: expected a list of source specs"),
        ("collector: { url: [\n", "not a YAML mapping of settings"),
    ])
    func badConfigurationExits78AndStartsNothing(text: String, message: String) throws {
        let device = Device()
        device.write(text)
        for command in [["config"], ["start", "--source", "trace:" + Repository.fixture("bicycle.trace")], ["upload"], ["list"]] {
            let result = try device.run(command + ["--data-dir", device.data], ["CAPTURE_CONFIG": device.config])
            #expect(result.status == 78, "\(command): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("capture: \(device.config):"), "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: device.data + "/capture.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: RuntimeDirectory(dataDirectory: device.data).path))
    }

    @Test func unreadableOrMissingFileExits78() throws {
        let device = Device()
        for path in [device.root + "/missing.yaml", device.root] {
            let result = try device.run(["config"], ["CAPTURE_CONFIG": path])
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("capture: cannot read the configuration file \(path): "), "\(result.stderr)")
        }
    }

    @Test func badEnvironmentValueExits78AndBadOptionExits64() throws {
        let device = Device()
        let environment = ["CAPTURE_CONFIG": "/dev/null", "CAPTURE_LOG_LEVEL": "loud"]
        let result = try device.run(["config"], environment)
        #expect(result.status == 78)
        #expect(result.stderr == "capture: $CAPTURE_LOG_LEVEL: log_level: expected one of error, warning, info, debug, not 'loud'\n")
        let option = try device.run(["config", "--log-level", "loud"], ["CAPTURE_CONFIG": "/dev/null"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("--log-level: log_level: expected one of error"))
    }

    @Test func checkReadsTheGivenFile() throws {
        let device = Device()
        device.write("upload: { min_waiting: 0 }\n", to: device.root + "/candidate.yaml")
        let bad = try device.run(["config", "--check", device.root + "/candidate.yaml"], ["CAPTURE_CONFIG": "/dev/null"])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("upload.min_waiting: expected a whole number of measurements, at least 1, not '0'"))
        try FileManager.default.copyItem(atPath: Repository.root + "/dist/config.example.yaml", toPath: device.root + "/example.yaml")
        let example = try device.run(["config", "--check", device.root + "/example.yaml"])
        #expect(example.status == 0, "the shipped example must be valid: \(example.stderr)")
    }

    /// The upload takes the collector from the file (and upload.json stays the lowest layer):
    /// a missing URL names every place to put it.
    @Test func uploadReadsTheCollectorFromTheFile() throws {
        let device = Device()
        device.write("data_dir: \(device.data)\ncollector: { token_file: /nonexistent/token }\n")
        let result = try device.run(["upload"], ["CAPTURE_CONFIG": device.config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("put \"collector.url\" in \(device.config)"), "\(result.stderr)")
        #expect(result.stderr.contains("upload.json"), "\(result.stderr)")
        device.write("data_dir: \(device.data)\ncollector: { url: https://127.0.0.1:9/api, token_file: /nonexistent/token }\n")
        let token = try device.run(["upload"], ["CAPTURE_CONFIG": device.config])
        // The URL came from the file; the token file is looked for next.
        #expect(token.stderr.contains("/nonexistent/token"), "\(token.stderr)")
    }

    @Test func quietByDefault() throws {
        let device = Device()
        let trace = Repository.fixture("bicycle.trace")
        let started = try device.run(["start", "--data-dir", device.data, "--source", "trace:" + trace], ["CAPTURE_CONFIG": "/dev/null"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stderr.isEmpty, "\(started.stderr)")
        _ = try device.run(["stop", "--data-dir", device.data], ["CAPTURE_CONFIG": "/dev/null"])
    }

    @Test func systemdUnitsVerify() throws {
        guard let analyze = Program.require("systemd-analyze", package: "systemd") else { return }
        let scratch = Device()
        let units = ["capture-record.service", "capture-sync.service", "capture-sync.timer", "capture-serve.service"]
        for unit in units {
            // The built binary stands in for /usr/bin/capture, which verify requires to exist.
            let text = try String(contentsOfFile: Repository.root + "/dist/systemd/" + unit, encoding: .utf8)
                .replacingOccurrences(of: "/usr/bin/capture", with: CLI.executable)
            scratch.write(text, to: scratch.root + "/" + unit)
        }
        let result = try Program.run(analyze, ["verify"] + units.map { scratch.root + "/" + $0 })
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let record = try String(contentsOfFile: Repository.root + "/dist/systemd/capture-record.service", encoding: .utf8)
        #expect(record.contains("ExecStart=/usr/bin/capture start --foreground --continue-interrupted"))
        #expect(record.contains("Restart=on-failure"))
        // The runtime directory: the recorder's alone, since systemd removes it when a unit that
        // names it stops (a sync pass ending would take the recorder's socket and lock away).
        #expect(record.contains("\nRuntimeDirectory=capture\nRuntimeDirectoryMode=0700\n"))
        // Out of Wi-Fi range (75) is no failure of the unit; refused credentials (77) are.
        let sync = try String(contentsOfFile: Repository.root + "/dist/systemd/capture-sync.service", encoding: .utf8)
        #expect(sync.contains("\nSuccessExitStatus=75\n"))
        #expect(!sync.contains("RuntimeDirectory"))
        // The page: its own unit, which does not take the recorder's runtime directory away.
        let serve = try String(contentsOfFile: Repository.root + "/dist/systemd/capture-serve.service", encoding: .utf8)
        #expect(serve.contains("\nExecStart=/usr/bin/capture serve\n"))
        #expect(!serve.contains("RuntimeDirectory="))
        let example = try String(contentsOfFile: Repository.root + "/dist/config.example.yaml", encoding: .utf8)
        #expect(example.contains("\nride:\n") && example.contains("\n  detect: auto\n"))
    }
}
