import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A medium that fails a sync (issue 41, item 6): a directory `fsync` that fails is an error, not
/// durability, and so is a file's. The built `capture` runs under the power-cut shim
/// (scripts/powercut/powercut.c), whose `POWERCUT_FAIL_SYNC=NAME:N` makes the Nth sync of a file
/// or directory named NAME fail with EIO, as a failing SD card's would.
@Suite struct FailingSyncEndToEndTests {
    /// The shim, built once per test with the C compiler.
    final class Shim {
        let scratch: Scratch
        var library: String { scratch.path + "/libpowercut.so" }

        init() throws {
            scratch = try Scratch.make("failing-sync")
            let compiler = try Program.run(
                "/usr/bin/cc", ["-O2", "-shared", "-fPIC", "-o", scratch.path + "/libpowercut.so", Repository.root + "/scripts/powercut/powercut.c", "-ldl"])
            try #require(compiler.status == 0, "\(compiler.stderr)")
        }

        /// Runs `capture ARGS --data-dir DATA` with the sync of `failing` (`NAME:N`) failing
        /// for files under `root`.
        func run(_ arguments: [String], data: String, root: String, failing: String) throws -> Program.Result {
            try Program.run(
                "/usr/bin/env",
                [
                    "-i", "PATH=/usr/bin:/bin", "HOME=\(scratch.path)", "CAPTURE_CONFIG=/dev/null", "LD_PRELOAD=\(library)",
                    "POWERCUT_ROOT=\(root)", "POWERCUT_JOURNAL=\(scratch.path)/journal", "POWERCUT_FAIL_SYNC=\(failing)",
                ] + Program.runtimeDirectoryVariable + [CLI.executable] + arguments + ["--data-dir", data])
        }
    }

    @Test("an export whose directory the medium fails to sync exits 74 with one line")
    func exportIntoADirectoryThatFailsItsSync() throws {
        let shim = try Shim()
        let cli = CLI()
        #expect(try cli.run(["replay", Repository.fixture("car.trace"), "--modality", "CAR"]).status == 0)
        let out = shim.scratch.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let failed = try shim.run(
            ["export", "1", "--format", "gpx", "-o", out + "/ride.gpx"], data: cli.dataDirectory, root: shim.scratch.path,
            failing: "out:1")
        #expect(failed.status == 74, "\(failed.stderr)")
        let lines = failed.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("capture:") == true, "\(failed.stderr)")
        #expect(failed.stderr.contains("Input/output error"), "\(failed.stderr)")
        // The same export on a medium that syncs succeeds.
        let again = try shim.run(
            ["export", "1", "--format", "gpx", "-o", out + "/ride.gpx"], data: cli.dataDirectory, root: shim.scratch.path,
            failing: "none:1")
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test("an attachment whose folder the medium fails to sync is not recorded, and the command says so")
    func attachmentIntoAFolderThatFailsItsSync() throws {
        let shim = try Shim()
        let cli = CLI()
        #expect(try cli.run(["replay", Repository.fixture("car.trace"), "--modality", "CAR"]).status == 0)
        let notes = shim.scratch.path + "/notes.json"
        try Data(#"{"weather": "dry"}"#.utf8).write(to: URL(fileURLWithPath: notes))
        // The measurement's attachment folder is `<data>/attachments/1`.
        let failed = try shim.run(["attach", "1", notes], data: cli.dataDirectory, root: cli.dataDirectory, failing: "1:1")
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        let shown = try cli.json(["show", "1"])
        let names = (shown["attachments"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(!names.contains("notes.json"), "\(shown)")
    }

    @Test("a database whose sync fails keeps a replay out whole: exit 74, then the same replay stores it once")
    func replayIntoADatabaseThatFailsItsSync() throws {
        let shim = try Shim()
        let cli = CLI()
        try FileManager.default.createDirectory(atPath: cli.dataDirectory, withIntermediateDirectories: true)
        #expect(try cli.run(["list"]).status == 0)
        let failed = try shim.run(
            ["replay", Repository.fixture("car.trace"), "--modality", "CAR"], data: cli.dataDirectory, root: cli.dataDirectory,
            failing: "capture.sqlite:2")
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        let check = try cli.run(["doctor", "--json"])
        #expect(!check.stdout.contains("\"quick_check\" : \"failed\""), "\(check.stdout)")
        let replayed = try cli.run(["replay", Repository.fixture("car.trace"), "--modality", "CAR"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let listed = try JSONSerialization.jsonObject(with: Data(try cli.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]] ?? []
        #expect(listed.filter { $0["status"] as? String == "finished" }.count == 1, "\(listed)")
    }
}
