public import Foundation
import CaptureCore
import Glibc

/// A file a person attaches to a measurement (`capture attach`): its format from the extension,
/// its content checked against it (JSON must parse, every JSONL line too, a JPG must start like
/// one, CSV must be text). ``Store/attach(_:to:directory:)`` copies it into the data directory
/// and records it.
public struct AttachmentFile: Sendable, Equatable {
    /// The file name it is kept and sent under (the last path component).
    public var name: String
    /// Its format.
    public var format: AttachmentRecord.Format
    /// Its bytes.
    public var bytes: Data

    /// Reads and checks the file at `path`.
    ///
    /// - Throws: ``AttachmentError``: an unsupported extension, an unreadable file, content
    ///   that does not match the format.
    public init(path: String) throws(AttachmentError) {
        let format = try Self.format(of: path)
        guard let bytes = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        if let problem = Self.problem(with: bytes, as: format) { throw .invalidContent(path, format, problem) }
        self.name = (path as NSString).lastPathComponent
        self.format = format
        self.bytes = bytes
    }

    /// The format of a file by its extension: `.csv`, `.json`, `.jsonl`, `.jpg` or `.jpeg`, any case.
    public static func format(of path: String) throws(AttachmentError) -> AttachmentRecord.Format {
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": .csv
        case "json": .json
        case "jsonl": .jsonl
        case "jpg", "jpeg": .jpg
        default: throw .unsupportedExtension(path)
        }
    }

    /// Why `bytes` are not a file of `format`, or nil.
    public static func problem(with bytes: Data, as format: AttachmentRecord.Format) -> String? {
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

/// Why a file cannot be attached.
public enum AttachmentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a `.csv`, `.json`, `.jsonl`, `.jpg` or `.jpeg` file.
    case unsupportedExtension(String)
    /// The file cannot be read (or does not exist).
    case unreadable(String)
    /// The content does not match the format: the file, its format, why.
    case invalidContent(String, AttachmentRecord.Format, String)
    /// The measurement already has an attachment of that name.
    case duplicateName(measurement: Int64, name: String)

    /// One line.
    public var description: String {
        switch self {
        case .unsupportedExtension(let path): "\(path): attachments are CSV, JSON, JSONL or JPG files (by their extension)"
        case .unreadable(let path): "cannot read \(path)"
        case .invalidContent(let path, let format, let problem):
            "\(path) is not \(format == .jpg ? "a JPG" : "valid \(format.rawValue.uppercased())"): \(problem)"
        case .duplicateName(let measurement, let name): "measurement \(measurement) already has an attachment named \(name)"
        }
    }
}

extension Store {
    /// Copies `file` to `<directory>/attachments/<measurement>/<name>` (mode 600, atomically) and
    /// records it, to go to the collector after its measurement. Nothing is kept if recording fails.
    ///
    /// - Throws: ``StoreError/measurementNotFound(_:)``, ``AttachmentError/duplicateName(measurement:name:)``,
    ///   and what writing the copy throws.
    public func attach(_ file: AttachmentFile, to measurement: Int64, directory: String) throws -> AttachmentRecord {
        _ = try self.measurement(measurement)
        guard try !attachments(of: measurement).contains(where: { $0.name == file.name }) else {
            throw AttachmentError.duplicateName(measurement: measurement, name: file.name)
        }
        let folder = Store.attachmentDirectory(of: measurement, in: directory)
        try PrivateFiles.createDirectory((folder as NSString).deletingLastPathComponent)
        try PrivateFiles.createDirectory(folder)
        let copy = try AtomicFile(path: folder + "/" + file.name)
        try copy.append(Array(file.bytes))
        try copy.commit()
        do {
            return try addAttachment(to: measurement, name: file.name, format: file.format)
        } catch {
            try? FileManager.default.removeItem(atPath: folder + "/" + file.name)
            throw error
        }
    }
}

extension AttachmentFile {
    /// Cuts a JSON Lines log that is written line by line (the recorder's `recorder.jsonl`)
    /// after its last whole line: what a power cut left of the line being written (part of it,
    /// or zeros where a sector did not reach the medium) goes; the lines before it, each synced,
    /// stay. A log that is whole or absent is left alone. The recorder calls it before writing
    /// the log again or finishing its measurement after a crash, the uploader before sending it
    /// (a cut right after the measurement finished can tear its last line, the summary).
    public static func cutTornLastLine(_ path: String) {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return }
        // A line is whole if it parses (a blank one too); a torn prefix of an object never does.
        func isWhole(_ line: Data) -> Bool {
            !line.contains(0)
                && (line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } || (try? JSONSerialization.jsonObject(with: line)) != nil)
        }
        var whole = 0
        for (index, byte) in data.enumerated() where byte == 0x0A {
            guard isWhole(Data(data[whole..<index])) else { break }
            whole = index + 1
        }
        guard whole < data.count else { return }
        // The last line without its newline is kept when it parses: a file written whole that way.
        let rest = Data(data[whole...])
        if !rest.contains(0x0A), isWhole(rest) { return }
        _ = Glibc.truncate(path, off_t(whole))
        let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        while fdatasync(fd) != 0, errno == EINTR {}
        close(fd)
    }
}

extension AttachmentRecord {
    /// What `capture attach` reports: the JSON object (the front end words the line).
    public struct Report: Encodable, Sendable, Equatable {
        public var measurement: Int64
        public var attachment: Int64
        public var name: String
        public var format: Format
        public var bytes: Int

        enum CodingKeys: String, CodingKey { case measurement, attachment, name, format, bytes }
    }

    /// This attachment's report, for a copy of `bytes` bytes.
    public func report(bytes: Int) -> Report {
        Report(measurement: measurement, attachment: id, name: name, format: format, bytes: bytes)
    }
}
