import CaptureStorage
import Foundation
import Testing

/// A path that is not a data directory is refused, and a directory capture did not make is not
/// reported on (issue 32: `status --data-dir /etc` advised `chmod 700 /etc`; `--data-dir
/// /etc/passwd` said idle).
@Suite struct DataDirectoryTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-datadir-\(UUID().uuidString)").path

    func make(_ name: String, mode: Int = 0o755, files: [String] = []) throws -> String {
        let path = root + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
        for file in files { FileManager.default.createFile(atPath: path + "/" + file, contents: Data("x".utf8)) }
        return path
    }

    @Test func aFileOrAForeignDirectoryIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let etc = try make("etc", files: ["passwd", "hosts"])
        try FileManager.default.createDirectory(atPath: etc + "/ssl", withIntermediateDirectories: false)
        #expect(throws: StoreError.cannotOpen(
            path: etc,
            reason: "it is not a capture data directory: it holds other files (hosts and 2 more) and no capture.sqlite; "
                + "choose a new or empty directory with --data-dir")) { try DataDirectory.check(etc) }
        #expect(throws: StoreError.cannotOpen(path: etc + "/passwd", reason: "it is a file, not a directory; choose another --data-dir")) {
            _ = try DataDirectory.existingStore(at: etc + "/passwd")
        }
        // Nothing was created in either.
        #expect(try FileManager.default.contentsOfDirectory(atPath: etc).sorted() == ["hosts", "passwd", "ssl"])
        // And no mode of theirs is called an exposure.
        #expect(PrivacyCheck(dataDirectory: etc).isPrivate)
    }

    @Test func aNewEmptyOrCapturesOwnDirectoryIsAccepted() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try DataDirectory.check(root + "/not-yet")
        #expect(try DataDirectory.existingStore(at: root + "/not-yet") == nil)
        #expect(!FileManager.default.fileExists(atPath: root + "/not-yet"))
        let prepared = try make("prepared", files: ["upload.json", "recorder.log"])
        #expect(try DataDirectory.existingStore(at: prepared) == nil)
        #expect(PrivacyCheck(dataDirectory: prepared).exposures.count == 1, "capture's own, though without a store yet")
        // A trace of the user's beside the rides-to-be: accepted, and its mode not capture's to judge.
        let traces = try make("traces", files: ["ride.trace"])
        #expect(try DataDirectory.existingStore(at: traces) == nil)
        #expect(PrivacyCheck(dataDirectory: traces).isPrivate)
        // A store makes any directory capture's own; its loose mode is then reported.
        let used = try make("used", files: ["notes.txt"])
        _ = try Store(directory: used)
        #expect(try DataDirectory.existingStore(at: used) != nil)
        #expect(PrivacyCheck(dataDirectory: used).exposures.map(\.chmod) == ["chmod 700 \(used)"])
    }
}
