import CaptureTestSupport
import Foundation
import Testing

/// Slips a person makes at the shell get an answer that points at the fix.
@Suite struct CommandLineSlipTests {
    @Test(arguments: [("stauts", "status"), ("strat", "start"), ("lsit", "list"), ("exprot", "export"), ("uplod", "upload")])
    func misspelledCommandSuggestsTheRightOne(_ typed: String, _ meant: String) throws {
        // The options after the slip must not be blamed: `capture strat --source …` once said
        // "Unknown option '--source'".
        let result = try Program.run(CLI.executable, [typed, "--source", "trace:x"]).cliResult
        #expect(result.status == 64)
        #expect(result.stderr == "capture: unknown command '\(typed)'. Did you mean '\(meant)'? See `capture --help`\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func aMisspeltRequiredOptionIsNamedNotReportedMissing() throws {
        // Issue 46: `--fromat gpx` was "Missing expected argument '--format <format>'".
        let result = try Program.run(CLI.executable, ["export", "1", "--fromat", "gpx"]).cliResult
        #expect(result.status == 64)
        #expect(result.stderr == "capture: Unknown option '--fromat'. Did you mean '--format'? See `capture export --help`\n")
    }

    @Test func aWordFarFromEveryCommandGetsNoGuess() throws {
        let result = try Program.run(CLI.executable, ["xyzzy"]).cliResult
        #expect(result.status == 64)
        #expect(result.stderr == "capture: unknown command 'xyzzy'; see `capture --help`\n")
    }

    @Test func globalOptionsBeforeTheCommandAreAccepted() throws {
        let cli = CLI()
        let replay = try cli.run(["replay", cli.fixture("car.trace")])
        #expect(replay.status == 0, "\(replay.stderr)")
        // `capture --data-dir X --json list` means `capture list --data-dir X --json`.
        let result = try Program.run(CLI.executable, ["--data-dir", cli.dataDirectory, "--json", "list"]).cliResult
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(entries?.count == 1)
        let equals = try Program.run(CLI.executable, ["--data-dir=\(cli.dataDirectory)", "list"]).cliResult
        #expect(equals.status == 0, "\(equals.stderr)")
        #expect(equals.stdout.contains("CAR"))
    }

    @Test func helpAndVersionStillWork() throws {
        #expect(try Program.run(CLI.executable, ["--help"]).status == 0)
        #expect(try Program.run(CLI.executable, ["help", "status"]).status == 0)
        let version = try Program.run(CLI.executable, ["--version"])
        #expect(version.status == 0)
        // A build of the working tree; scripts/package's build names its commit instead.
        #expect(version.stdout == "0.1.0 (development build)\n")
    }
}
