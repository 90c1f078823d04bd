import ArgumentParser
import CaptureCore
import CaptureStorage
import Foundation

struct Attach: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Add a file (CSV, JSON, JSONL or JPG) to a measurement, to go to the collector after it.",
        discussion: """
            The file is copied into the data directory (<data dir>/attachments/ID/, mode 600) \
            and uploaded after its measurement through the collector's attachment endpoints, \
            raw, resumable and exactly once like measurements; the measurement's metadata \
            counts it (logCount for CSV, JSON and JSONL, imageCount for JPG, filesSize). The \
            recorder attaches its own log of each measurement it records (recorder.jsonl). \
            `capture show ID` lists the attachments and where each upload stands. The format \
            comes from the extension (.csv, .json, .jsonl, .jpg or .jpeg) and is checked: JSON \
            must parse, every JSONL line too, a JPG must start like one, CSV must be text.

            EXIT CODES: 0 attached; 64 an unsupported extension; 65 the content does not match \
            it, or the measurement already has an attachment of that name; 66 no such \
            measurement or file; 74 the copy cannot be written.
            """)

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The measurement id.") var id: Int64
    @Argument(help: ArgumentHelp("The file to attach.", valueName: "file")) var file: String

    func run() throws {
        let attachment = try AttachmentFile(path: file)
        guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(id) }
        let report = try store.attach(attachment, to: id, directory: data.path).report(bytes: attachment.bytes.count)
        try output.printLine(report, [report.line])
    }
}
