import CaptureTestSupport
import Foundation
import Testing

/// Every command's `--help`, byte for byte against fixtures/golden/help/ (`scripts/update-goldens`),
/// so that a refactoring changes nothing a user reads unless it means to. The commands come from
/// the binary's own tree (`--experimental-dump-help`): a new command without its golden fails.
@Suite struct HelpGoldenTests {
    /// Runs the built `capture` at 80 columns (the width when stdout is not a terminal and
    /// `COLUMNS` is unset), whatever the test's environment says.
    static func capture(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = try Subprocess(["COLUMNS=80", CLI.executable] + arguments, executable: "/usr/bin/env")
        let status = process.wait()
        return (status, process.stdout)
    }

    /// Every visible command as its words (`[]` for `capture` itself, `["gnss", "setup"]`).
    static func commands() throws -> [[String]] {
        let dump = try capture(["--experimental-dump-help"])
        let root = try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any]
        var found: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            found.append(path)
            for sub in command["subcommands"] as? [[String: Any]] ?? [] where sub["shouldDisplay"] as? Bool ?? true {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, path + [name])
            }
        }
        walk(root?["command"] as? [String: Any] ?? [:], [])
        return found
    }

    /// The golden's name: `capture.txt`, `start.txt`, `gnss-setup.txt`.
    static func golden(_ command: [String]) -> String {
        "golden/help/" + (command.isEmpty ? "capture" : command.joined(separator: "-")) + ".txt"
    }

    @Test func everyCommandsHelpMatchesItsGolden() throws {
        let commands = try Self.commands()
        #expect(commands.count > 20, "the command tree: \(commands)")
        for command in commands {
            let help = try Self.capture(command + ["--help"])
            #expect(help.status == 0, "capture \(command.joined(separator: " ")) --help")
            let path = Repository.fixture(Self.golden(command))
            let golden = try? String(contentsOfFile: path, encoding: .utf8)
            #expect(golden != nil, "no fixtures/\(Self.golden(command)); run scripts/update-goldens")
            #expect(
                help.stdout == golden,
                "capture \(command.joined(separator: " ")) --help differs from fixtures/\(Self.golden(command)); if intended, run scripts/update-goldens")
        }
    }
}
