import CaptureTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// `capture doctor` on a healthy device and on broken ones: every problem named, with what to do.
@Suite struct DoctorEndToEndTests {
    typealias Device = ConfigEndToEndTests.Device

    /// The checks of a `doctor --json` run by name, and its exit status.
    static func doctor(_ device: Device, _ arguments: [String]) throws -> (status: Int32, checks: [String: [String: String]], order: [String]) {
        let result = try device.run(["doctor", "--json", "--seconds", "1"] + arguments, ["CAPTURE_CONFIG": device.config])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        var checks: [String: [String: String]] = [:]
        var order: [String] = []
        for check in object["checks"] as? [[String: String]] ?? [] {
            checks[check["check"] ?? ""] = check
            order.append(check["check"] ?? "")
        }
        #expect(object["failed"] as? Int == checks.values.filter { $0["status"] == "fail" }.count)
        return (result.status, checks, order)
    }

    /// `--storage` measures the data directory's medium instead of the other checks, and leaves
    /// nothing behind in it.
    @Test func storageMeasuresTheMedium() throws {
        let device = Device()
        device.write("data_dir: \(device.data)\n")
        try FileManager.default.createDirectory(atPath: device.data, withIntermediateDirectories: true)
        let run = try Self.doctor(device, ["--storage"])
        #expect(run.status == 0 && run.order == ["storage"], "\(run.checks)")
        #expect(run.checks["storage"]?["detail"]?.contains("fdatasync: p50") == true, "\(run.checks)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: device.data).isEmpty)
    }

    /// `--system` checks the board instead (issue 44, item 4): a browning-out Pi fails with 1.
    @Test func systemChecksTheBoard() throws {
        let device = Device()
        device.write("data_dir: \(device.data)\n")
        let root = device.data + "-board"
        try FileManager.default.createDirectory(atPath: root + "/sys/devices/platform/soc/soc:firmware", withIntermediateDirectories: true)
        try "0x50005\n".write(toFile: root + "/sys/devices/platform/soc/soc:firmware/get_throttled", atomically: true, encoding: .utf8)
        let run = try Self.doctor(device, ["--system", "--sysfs-root", root])
        #expect(run.status == 1 && run.order == ["power", "swap", "journal", "data medium", "clock", "card"], "\(run.checks)")
        #expect(run.checks["power"]?["status"] == "fail" && run.checks["power"]?["advice"]?.contains("5.1 V") == true)
        let both = try device.run(["doctor", "--system", "--storage"], ["CAPTURE_CONFIG": device.config])
        #expect(both.status == 64 && both.stderr.hasPrefix("capture: --storage and --system: one at a time"), "\(both.stderr)")
    }

    @Test func aHealthyDevicePassesEveryCheckAndUploadsNothing() throws {
        let collector = try CollectorProcess()
        let device = Device()
        let trace = "trace:" + Repository.fixture("bicycle.trace")
        device.write(
            """
            data_dir: \(device.data)
            collector: { url: "\(collector.url)", token_file: \(collector.tokenFile) }
            capture: { sources: ["\(trace)"] }
            retention: { max_store_size: 64M }

            """)
        chmod(device.data, 0o700)
        #expect(try device.run(["replay", Repository.fixture("car.trace")], ["CAPTURE_CONFIG": device.config]).status == 0)
        let run = try Self.doctor(device, [])
        #expect(run.status == 0, "\(run.checks)")
        #expect(
            run.order == [
                "configuration", "data directory", "runtime dir", "store", "recorder", "upload sessions", "disk", "source \(trace)",
                "collector", "token",
            ])
        for (name, check) in run.checks { #expect(check["status"] == "pass", "\(name): \(check)") }
        // The trace delivers its motion sensors at 100 Hz.
        let source = try #require(run.checks["source \(trace)"]?["detail"])
        #expect(source.contains("acc ") && source.contains("fix "), "\(source)")
        #expect(run.checks["store"]?["detail"]?.hasPrefix("quick_check ok") == true)
        #expect(try collector.stored().isEmpty, "doctor uploads nothing")
        // Text: one line per check, then the summary.
        let text = try device.run(["doctor", "--seconds", "0"], ["CAPTURE_CONFIG": device.config])
        let lines = text.stdout.split(separator: "\n")
        #expect(text.status == 0 && lines.count == run.order.count + 1)
        #expect(lines.last == "doctor: 10 passed, 0 warning(s), 0 failed")
    }

    @Test func aBrokenSetupNamesEachProblemAndWhatToDo() throws {
        let collector = try CollectorProcess()
        let cli = CLI()
        let device = Device()
        let wrongToken = device.root + "/wrong-token"
        device.write("not-the-token\n", to: wrongToken, mode: 0o600)
        let sysfs = FakeSysfs(prefix: "capture-doctor-sysfs")
        defer { sysfs.remove() }
        device.write(
            """
            data_dir: \(cli.dataDirectory)
            collector: { url: "\(collector.url)", token_file: \(wrongToken) }
            capture: { sources: ["iio:iio:device9"] }
            retention: { max_store_size: 4000000G }

            """)
        // A recorder killed mid-measurement, and a data directory others can read.
        #expect(try cli.run(["start", "--source", "trace:" + Repository.fixture("bicycle.trace")]).status == 0)
        let recorder = try #require(cli.recorderPID)
        kill(recorder, SIGKILL)
        for _ in 0..<200 where Subprocess.isAlive(recorder) { usleep(25_000) }
        chmod(cli.dataDirectory, 0o755)

        let run = try Self.doctor(device, ["--sysfs-root", sysfs.path])
        #expect(run.status == 1)
        let failed = Set(run.checks.filter { $0.value["status"] == "fail" }.keys)
        #expect(failed == ["data directory", "recorder", "disk", "source iio:iio:device9", "token"], "\(run.checks)")
        #expect(run.checks["data directory"]?["advice"] == "run: chmod 700 \(cli.dataDirectory)")
        #expect(run.checks["recorder"]?["detail"] == "measurement 1 is open but its recorder is gone")
        #expect(run.checks["recorder"]?["advice"]?.contains("capture stop") == true)
        #expect(run.checks["source iio:iio:device9"]?["detail"]?.contains("no IIO device iio:device9") == true)
        #expect(run.checks["token"]?["detail"] == "refused by the collector (401)")
        #expect(run.checks["disk"]?["advice"] == "lower retention.max_store_size or free space")
        for name in failed { #expect(run.checks[name]?["advice"]?.isEmpty == false, "\(name) says what to do") }
        #expect(run.checks["configuration"]?["status"] == "pass" && run.checks["store"]?["status"] == "pass")

        // Text: FAIL lines with the advice after an arrow, and the summary.
        let text = try device.run(["doctor", "--seconds", "0", "--sysfs-root", sysfs.path], ["CAPTURE_CONFIG": device.config])
        #expect(text.status == 1)
        #expect(text.stdout.contains("FAIL  token") && text.stdout.contains("→ renew the token in \(wrongToken)"))
        #expect(text.stdout.hasSuffix("failed\n") && text.stdout.contains(", 5 failed"))
        #expect(!text.stdout.contains("not-the-token"), "a token is never printed")
    }

    @Test func aBadConfigurationAndADownCollectorAreNamedToo() throws {
        let device = Device()
        device.write("colector: { url: https://x.example/ }\n")
        let broken = try Self.doctor(device, [])
        #expect(broken.status == 1)
        let configuration = try #require(broken.checks["configuration"])
        #expect(configuration["status"] == "fail")
        #expect(configuration["detail"]?.contains(device.config) == true && configuration["detail"]?.contains("colector") == true)
        // The other checks still ran, on the defaults.
        #expect(broken.order.contains("disk") && broken.order.contains("collector"))

        let port = try Loopback.freePort()
        device.write("data_dir: \(device.data)\ncollector: { url: \"http://127.0.0.1:\(port)/\" }\ncapture: { sources: [\"trace:\(Repository.fixture("car.trace"))\"] }\n")
        chmod(device.data, 0o700)
        let down = try Self.doctor(device, [])
        #expect(down.status == 1)
        #expect(down.checks["collector"]?["status"] == "fail")
        #expect(down.checks["collector"]?["detail"]?.contains("does not answer") == true)
        // Issue 46: the token is checked without an answer too (here none is configured).
        #expect(down.checks["token"]?["status"] == "fail", "\(down.checks)")
    }

    /// A live receiver on a pty sending the real time, and the doctor's host clock shifted by
    /// faketime: the offset is measured (GNSS − host), and a wrong clock is a warning that says
    /// what to do.
    @Test(arguments: [("-5m", -300.0), ("+0", 0.0)] as [(String, Double)])
    func theHostClockIsComparedWithGNSSTime(shift: String, seconds: Double) throws {
        guard FileManager.default.isExecutableFile(atPath: ClockEndToEndTests.faketime) else {
            Issue.record("faketime is not installed: run scripts/setup (installs Debian's faketime)")
            return
        }
        signal(SIGPIPE, SIG_IGN)
        let terminal = try PseudoTerminal()
        let pty = terminal.path
        let stop = Atomic(false)
        let finished = DispatchSemaphore(value: 0)
                // An epoch (RMC and GGA) every 200 ms at the real time, until the doctor is done.
        let writer = Thread {
            var index = 0
            while !stop.load(ordering: .relaxed) {
                let text = ClockEndToEndTests.epoch(index).text
                _ = terminal.write(text)
                index += 1
                usleep(200_000)
            }
            finished.signal()
        }
        writer.start()
        defer {
            stop.store(true, ordering: .relaxed)
            finished.wait()
        }

        let device = Device()
        device.write("data_dir: \(device.data)\ncapture: { sources: [\"nmea:\(pty)\"] }\n")
        chmod(device.data, 0o700)
        let result = try Program.run(
            "/usr/bin/env",
            [
                "-i", "PATH=/usr/bin:/bin", "HOME=\(device.root)/home", "CAPTURE_CONFIG=\(device.config)",
            ] + Program.runtimeDirectoryVariable + [
                ClockEndToEndTests.faketime, "--exclude-monotonic", "-f", shift, CLI.executable, "doctor", "--json", "--seconds", "3",
            ])
        terminal.closeSlave()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        let checks = object["checks"] as? [[String: String]] ?? []
        let source = try #require(checks.first { $0["check"] == "source nmea:\(pty)" }, "\(checks)")
        #expect(source["status"] == "pass", "\(source)")
        #expect(source["detail"]?.contains("fix ") == true, "\(source)")
        let clock = try #require(checks.first { $0["check"] == "gnss clock" }, "\(checks)")
        // "the host clock is -300.012 s off GNSS time (spread 9 ms)"
        let words = (clock["detail"] ?? "").split(separator: " ")
        let offset = try #require(words.firstIndex(of: "is").flatMap { Double(words[$0 + 1]) }, "\(clock)")
        #expect(abs(offset - seconds) < 1, "\(clock)")
        if seconds == 0 {
            #expect(clock["status"] == "pass" && result.status == 0, "\(checks)")
        } else {
            #expect(clock["status"] == "warn" && clock["advice"]?.contains("NTP") == true, "\(clock)")
            #expect(result.status == 0, "a warning does not fail the doctor: \(checks)")
        }
    }
}
