import ArgumentParser
import CaptureCore
import CaptureRecorder
import CaptureStorage
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what is being captured right now.",
        discussion: """
            State is idle, capturing, paused or interrupted (the measurement is open but its \
            recorder is gone: `capture resume` or `capture stop`). Counts are what is committed \
            (durable: in the database, or in the flush log on its way there, which a crash \
            does not lose); rates are over the last ten seconds.

            The data directory should be mode 700 and the database 600 (capture creates them \
            so): if group or others can read them, one line on standard error says so with the \
            chmod to run, and --json lists them under "exposed".
            """)
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let report = try RecorderControl(directory: data.controlPath).status()
        if let warning = PrivacyCheck.warning(report.exposed) { FileHandle.standardError.write(Data(("capture: " + warning + "\n").utf8)) }
        try output.print(report, report.text(interrupted: "`capture resume` continues on a new track, `capture stop` finishes", room: "delivery (`capture sync`), `capture prune` or `capture delete` makes some"))
    }
}
