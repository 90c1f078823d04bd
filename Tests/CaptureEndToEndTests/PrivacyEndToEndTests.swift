import CaptureRecorder
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The permission bits of `path` (not following a symbolic link), nil if it does not exist.
private func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

/// Every path under `directory` (itself included) with its permission bits, in octal.
private func modes(under directory: String) -> [String: String] {
    var result: [String: String] = [:]
    if let mode = permissions(directory) { result["."] = String(mode, radix: 8) }
    for name in (FileManager.default.subpaths(atPath: directory) ?? []) {
        if let mode = permissions(directory + "/" + name) { result[name] = String(mode, radix: 8) }
    }
    return result
}

/// Private at rest: what capture writes in a data directory is its owner's alone, whatever the umask.
@Suite struct PrivacyEndToEndTests {
    /// Runs `capture ARGS --data-dir DIR` under `umask 000`, so that only the modes capture sets count.
    func runOpenUmask(_ cli: CLI, _ arguments: [String]) throws -> CLI.Result {
        let process = try Subprocess(
            ["-c", "umask 000; exec \"$0\" \"$@\"", CLI.executable] + arguments + ["--data-dir", cli.dataDirectory], input: nil,
            executable: "/bin/sh")
        let status = process.wait()
        return CLI.Result(status: status, stdout: process.stdout, stderr: process.stderr)
    }

    @Test func everythingCaptureWritesInTheDataDirectoryIsPrivateUnderAnOpenUmask() throws {
        let cli = CLI()
        let directory = cli.dataDirectory
        let started = try runOpenUmask(
            cli, ["start", "--source", "trace:" + cli.fixture("car.trace"), "--record-trace", directory + "/tap.trace"])
        #expect(started.status == 0, "\(started.stderr)")
        // While the recorder runs: its log, flush log and the database (its journal comes and goes
        // with transactions; the loop at the end sees it if it is there); its lock, pid file and
        // socket in its runtime directory, which is 700 too.
        #expect(cli.waitFor { FileManager.default.fileExists(atPath: directory + "/capture.flushlog") })
        let running = modes(under: directory)
        for name in ["recorder.log", "capture.flushlog", "capture.sqlite"] {
            #expect(running[name] == "600", "\(name): \(running)")
        }
        let runtime = modes(under: cli.runtime.path)
        #expect(runtime["."] == "700", "\(runtime)")
        for name in ["recorder.lock", "recorder.pid", "control.sock"] {
            #expect(runtime[name] == "600", "\(name): \(runtime)")
        }
        // Enough fixes for an upload (at least two locations).
        #expect(try cli.waitFor(30) {
            let status = try cli.json(["status"])
            return ((status["committed"] as? [String: Any])?["locations"] as? Int ?? 0) >= 3
        })
        #expect(try runOpenUmask(cli, ["stop"]).status == 0)
        // Exports written inside it, and the transfer file with its sidecar an upload makes.
        #expect(try runOpenUmask(cli, ["export", "1", "--format", "gpx", "-o", directory + "/ride.gpx"]).status == 0)
        #expect(try runOpenUmask(cli, ["export", "1", "--format", "csv", "-o", directory + "/csv"]).status == 0)
        let collector = try HostileCollector([HostileCollector.answer(409)])
        defer { collector.stop() }
        let token = scratch("token")
        defer { unlink(token) }
        #expect(FileManager.default.createFile(atPath: token, contents: Data("secret\n".utf8), attributes: [.posixPermissions: 0o600]))
        let uploaded = try runOpenUmask(cli, ["upload", "--url", collector.url, "--token-file", token, "--retry-budget", "1"])
        #expect(uploaded.status == 0, "\(uploaded.stdout) \(uploaded.stderr)")

        let all = modes(under: directory)
        for name in ["tap.trace", "ride.gpx", "csv/locations.csv", "transfer/1.ccyf", "transfer/1.ccyf.meta"] {
            #expect(all[name] == "600", "\(name): \(all)")
        }
        for (name, mode) in all {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
            #expect(mode == (isDirectory.boolValue ? "700" : "600"), "\(name) is \(mode)")
        }
        // A private directory gets no warning.
        let status = try cli.run(["status"])
        #expect(status.status == 0 && status.stderr.isEmpty, "\(status.stderr)")
        #expect((try cli.json(["status"])["exposed"] as? [Any])?.isEmpty == true)
    }

    @Test func aDataDirectoryOthersCanReadIsReportedNotChanged() throws {
        let cli = CLI()
        let directory = cli.dataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o755) == 0)
        let trace = scratch("ride.trace")
        defer { unlink(trace) }
        try shortTrace(fixes: 5).write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(try cli.run(["replay", trace]).status == 0)
        #expect(chmod(directory + "/capture.sqlite", 0o644) == 0)

        let status = try cli.run(["status"])
        #expect(status.status == 0)
        #expect(
            status.stderr
                == "capture: warning: other users can read \(directory) (mode 755), \(directory)/capture.sqlite (mode 644); "
                + "run: chmod 700 \(directory); chmod 600 \(directory)/capture.sqlite\n", "\(status.stderr)")
        let json = try cli.run(["status", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any] ?? [:]
        let exposed = report["exposed"] as? [[String: String]] ?? []
        #expect(exposed.map { $0["path"] } == [directory, directory + "/capture.sqlite"], "\(report)")
        #expect(exposed.map { $0["mode"] } == ["755", "644"])
        #expect(exposed.map { $0["chmod"] } == ["chmod 700 \(directory)", "chmod 600 \(directory)/capture.sqlite"])
        // Reported, not changed.
        #expect(permissions(directory) == 0o755 && permissions(directory + "/capture.sqlite") == 0o644)

        // After the chmods it says nothing.
        #expect(chmod(directory, 0o700) == 0 && chmod(directory + "/capture.sqlite", 0o600) == 0)
        let quiet = try cli.run(["status"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// Issue 32: `status --data-dir /etc` advised `chmod 700 /etc`, and `--data-dir /etc/passwd`
    /// said idle with exit 0. Both are refused as `replay` refuses a file, nothing advised.
    @Test func aPathThatIsNotADataDirectoryIsRefusedWithoutAdvice() throws {
        let foreign = scratch("etc")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: foreign) }
        #expect(chmod(foreign, 0o755) == 0)
        #expect(FileManager.default.createFile(atPath: foreign + "/passwd", contents: Data("root:x:0:0\n".utf8)))
        try FileManager.default.createDirectory(atPath: foreign + "/ssl", withIntermediateDirectories: false)
        for command in [["status"], ["status", "--json"], ["pause"]] {
            let refused = try Program.run(CLI.executable, command + ["--data-dir", foreign]).cliResult
            expectRefusal(
                refused, 74,
                "cannot open the data directory \(foreign): it is not a capture data directory: it holds other files (passwd and 1 more) "
                    + "and no capture.sqlite; choose a new or empty directory with --data-dir", "\(command)")
            #expect(!refused.stderr.contains("chmod"), "\(refused.stderr)")
        }
        let file = try Program.run(CLI.executable, ["status", "--data-dir", foreign + "/passwd"]).cliResult
        expectRefusal(
            file, 74, "cannot open the data directory \(foreign)/passwd: it is a file, not a directory; choose another --data-dir",
            "status of a file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: foreign).sorted() == ["passwd", "ssl"], "nothing was created")
        #expect(permissions(foreign) == 0o755)
    }
}
