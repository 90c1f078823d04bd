import ArgumentParser
import CaptureCore
import CaptureWiring
import Logging
import Foundation

@main
struct Capture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Record geo-located motion data and keep it safe in a local store.",
        discussion: """
            A measurement runs from `capture start` to `capture stop`, with `pause` and `resume` \
            in between (every resume opens a new track) and `modality` to record a change such \
            as BICYCLE → WALKING. The recorder runs in the background and commits what it \
            captured once per flush interval, so a crash loses at most one interval.

            `capture replay ride.trace` turns a recorded ride into a finished measurement \
            through the same recorder code, deterministically (docs/trace-format.md).
            `capture export ID --format cyface|gpx|geojson|csv|gpkg` writes a measurement out;
            `capture import FILE` reads a Cyface transfer file back in.

            \(ExitStatus.help)
            """,
        version: BuildInfo.description,
        subcommands: [
            Start.self, Pause.self, Resume.self, Stop.self, ModalityCommand.self, Status.self, List.self,
            Show.self, Delete.self, Replay.self, Export.self, Plot.self, SurfaceCommand.self, Import.self, Upload.self, Sensors.self, Record.self,
            ConfigCommand.self, Sync.self, Metrics.self, Prune.self, Doctor.self, Login.self, Logout.self, Attach.self, GNSS.self,
            Serve.self,
        ])

    /// ArgumentParser's `main`, except that a usage error is one line on stderr like every other
    /// error (`capture: …; see `capture start --help``), not the error plus the whole usage, and
    /// that what a command throws is mapped here, once, to its line and exit code (``CLIError``).
    static func main() async {
        LoggingSystem.bootstrap { _ in PlainLogHandler() }
        let names = Set(configuration.subcommands.map { $0._commandName })
        let arguments = CommandLineRepair.hoistingGlobalOptions(Array(CommandLine.arguments.dropFirst()), subcommands: names)
        if let word = CommandLineRepair.unknownSubcommand(arguments, subcommands: names) {
            let hint = Spelling.closest(to: word, among: names).map { ". Did you mean '\($0)'? See" } ?? "; see"
            FileHandle.standardError.write(Data("capture: unknown command '\(word)'\(hint) `capture --help`\n".utf8))
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let status = exitCode(for: error)
            // --help, --version and the like print as usual.
            guard status != .success else { exit(withError: error) }
            let message = CommandLineRepair.namingSlip(RejectedArgument.message(replacing: Self.message(for: error)), in: arguments)
                .split(whereSeparator: \.isNewline).joined(separator: " ")
            let sub = arguments.first { names.contains($0) }
            let help = sub.map { "capture \($0) --help" } ?? "capture --help"
            // "Unknown option '--frob'. Did you mean '--json'?" ends a sentence already.
            let joint = message.last.map { ".?!".contains($0) } == true ? " See" : "; see"
            FileHandle.standardError.write(Data("capture: \(message)\(joint) `\(help)`\n".utf8))
            Foundation.exit(status.rawValue)
        }
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // ExitCode, and help asked for (`capture help status`): ArgumentParser's own way.
            exit(withError: error)
        } catch {
            let failure = CLIError.from(error)
            FileHandle.standardError.write(Data("capture: \(failure.message)\n".utf8))
            Foundation.exit(failure.status.rawValue)
        }
    }
}
