import CaptureCore
import CaptureStorage
import Foundation
import Glibc
import Testing

/// `capture attach`'s work: a file's format from its extension, its content checked, the copy
/// into the data directory and the record, each fault typed.
@Suite struct AttachmentFileTests {
    let temporary = TemporaryDirectory()
    var data: String { temporary.path + "/data" }

    func file(_ name: String, _ content: String) throws -> String {
        try FileManager.default.createDirectory(atPath: temporary.path, withIntermediateDirectories: true)
        let path = temporary.path + "/" + name
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theFormatComesFromTheExtensionAndTheContentMustMatchIt() throws {
        #expect(try AttachmentFile(path: try file("a.CSV", "t,x\n1,2\n")).format == .csv)
        #expect(try AttachmentFile(path: try file("a.jsonl", "{\"a\": 1}\n\n[2]\n")).format == .jsonl)
        #expect(throws: AttachmentError.unsupportedExtension(temporary.path + "/a.txt")) { try AttachmentFile(path: try file("a.txt", "x")) }
        let json = try file("bad.json", "{")
        #expect(throws: AttachmentError.invalidContent(json, .json, "it does not parse")) { try AttachmentFile(path: json) }
        let lines = try file("bad.jsonl", "{}\nnope\n")
        #expect(throws: AttachmentError.invalidContent(lines, .jsonl, "line 2 does not parse")) { try AttachmentFile(path: lines) }
        let jpg = try file("x.jpg", "not a picture")
        #expect(AttachmentError.invalidContent(jpg, .jpg, "it does not start with a JPEG marker").description
            == "\(jpg) is not a JPG: it does not start with a JPEG marker")
        #expect(throws: AttachmentError.self) { try AttachmentFile(path: jpg) }
        #expect(throws: AttachmentError.unreadable("/nonexistent/x.csv")) { try AttachmentFile(path: "/nonexistent/x.csv") }
    }

    @Test func attachingCopiesTheFilePrivatelyAndRecordsItOnce() throws {
        let store = try Store(directory: data)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.bicycle), at: 1_000), sources: "test")
        let attachment = try AttachmentFile(path: try file("notes.json", "{\"weather\": \"rain\"}"))
        let record = try store.attach(attachment, to: id, directory: data)
        #expect(record.name == "notes.json" && record.format == .json && record.measurement == id)
        let copy = record.path(in: data)
        #expect(FileManager.default.contents(atPath: copy) == attachment.bytes)
        var info = stat()
        #expect(stat(copy, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(throws: AttachmentError.duplicateName(measurement: id, name: "notes.json")) {
            try store.attach(attachment, to: id, directory: data)
        }
        #expect(throws: StoreError.measurementNotFound(99)) { try store.attach(attachment, to: 99, directory: data) }
        #expect(try store.attachments(of: id).map(\.name) == ["notes.json"])
    }
}
