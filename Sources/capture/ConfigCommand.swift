import ArgumentParser
import CaptureConfig
import CaptureWiring
import CaptureCore
import Foundation

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the effective settings and where each came from.",
        discussion: """
            Every setting comes from the first of: a command-line option, an environment \
            variable, the configuration file, <data dir>/upload.json (collector.url, \
            collector.token_file and collector.trusted_origins only), the default. The file is \
            $CAPTURE_CONFIG, else $XDG_CONFIG_HOME/capture/config.yaml (~/.config/capture/\
            config.yaml), else /etc/capture/config.yaml; docs/configuration.md lists every key \
            and its variable, and dist/config.example.yaml is a commented example.

            The token file's path is shown, the token never. An unknown key, a bad value or an \
            unreadable or malformed file is one line naming the file, the key and what is \
            expected, and exit 78, here as for every other command.

            --check FILE checks FILE alone (as if it were $CAPTURE_CONFIG) and prints its \
            settings; use it before installing a file on a device.
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: ArgumentHelp("Check this file instead of the one looked up.", valueName: "file"))
    var check: String?

    func run() throws {
        let report = ConfigReport(try DeviceConfiguration.forProcess(data.configFlags, file: check))
        try output.print(report, report.text)
    }
}
