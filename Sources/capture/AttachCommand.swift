import ArgumentParser
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
        try execute {
            let format = try Self.format(of: file)
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw CLIError(.notFound, "cannot read \(file)")
            }
            if let problem = Self.problem(with: bytes, as: format) {
                throw CLIError(.dataError, "\(file) is not \(format == .jpg ? "a JPG" : "valid \(format.rawValue.uppercased())"): \(problem)")
            }
            guard let store = try data.existingStore() else { throw StoreError.measurementNotFound(id) }
            _ = try store.measurement(id)
            let name = (file as NSString).lastPathComponent
            guard try !store.attachments(of: id).contains(where: { $0.name == name }) else {
                throw CLIError(.dataError, "measurement \(id) already has an attachment named \(name)")
            }
            let directory = Store.attachmentDirectory(of: id, in: data.path)
            try PrivateFiles.createDirectory((directory as NSString).deletingLastPathComponent)
            try PrivateFiles.createDirectory(directory)
            let copy = try AtomicFile(path: directory + "/" + name)
            try copy.append(Array(bytes))
            try copy.commit()
            let record: AttachmentRecord
            do {
                record = try store.addAttachment(to: id, name: name, format: format)
            } catch {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
                throw error
            }
            if output.json {
                try printJSONLine([
                    "measurement": id, "attachment": record.id, "name": name, "format": format.rawValue, "bytes": bytes.count,
                ])
            } else {
                print(
                    "attached \(name) to measurement \(id) as attachment \(record.id) (\(format.rawValue), "
                        + "\(Progress.bytes(Int64(bytes.count)))); it goes to the collector after the measurement")
            }
        }
    }

    static func format(of path: String) throws -> AttachmentRecord.Format {
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": .csv
        case "json": .json
        case "jsonl": .jsonl
        case "jpg", "jpeg": .jpg
        default: throw CLIError(.usage, "\(path): attachments are CSV, JSON, JSONL or JPG files (by their extension)")
        }
    }

    /// Why `bytes` are not a file of `format`, or nil.
    static func problem(with bytes: Data, as format: AttachmentRecord.Format) -> String? {
        switch format {
        case .jpg:
            return bytes.starts(with: [0xFF, 0xD8, 0xFF]) ? nil : "it does not start with a JPEG marker"
        case .json:
            return (try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) == nil ? "it does not parse" : nil
        case .jsonl:
            for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
            where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
                if (try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])) == nil {
                    return "line \(number + 1) does not parse"
                }
            }
            return nil
        case .csv:
            guard String(data: bytes, encoding: .utf8) != nil, !bytes.contains(0) else { return "it is not UTF-8 text" }
            return nil
        }
    }
}
