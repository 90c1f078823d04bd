import CaptureCore
import Foundation
import Glibc
import Testing

@testable import CaptureStorage

/// The permission bits of `path` (not following a symbolic link), nil if it does not exist.
func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

@Suite struct PrivateFilesTests {
    let root = TemporaryDirectory()

    @Test func aNewDataDirectoryIs0700AndTheDatabaseWithItsJournal0600() throws {
        let directory = root.path + "/nested/data"
        let store = try Store(directory: directory)
        var engine = Recording()
        _ = try store.begin(try engine.apply(.start(.bicycle), at: 1_000), sources: "trace:x")
        #expect(permissions(directory) == 0o700)
        for name in ["capture.sqlite", "capture.sqlite-journal", "capture.sqlite.migrate-lock"] {
            #expect(permissions(directory + "/" + name) == 0o600, "\(name): \(String(permissions(directory + "/" + name) ?? 0, radix: 8))")
        }
    }

    /// What the 0600 of the journal (and of -wal and -shm, in a store still in WAL mode) rests
    /// on: SQLite gives them the database file's permissions.
    @Test func sqliteGivesItsJournalTheDatabaseFilesMode() throws {
        let directory = root.path + "/data"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory + "/capture.sqlite", contents: nil, attributes: [.posixPermissions: 0o640]))
        let store = try Store(directory: directory)
        _ = try store.deviceID()
        // An existing database keeps its mode; its journal follows it (not the umask).
        for name in ["capture.sqlite", "capture.sqlite-journal"] {
            #expect(permissions(directory + "/" + name) == 0o640, "\(name)")
        }
    }

    @Test func anExistingDirectoryKeepsItsModeAndNewFilesInItAre0600() throws {
        let directory = root.path + "/data"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o755) == 0)
        try PrivateFiles.createDirectory(directory)
        _ = try Store(directory: directory)
        #expect(permissions(directory) == 0o755)
        #expect(permissions(directory + "/capture.sqlite") == 0o600)
    }

    @Test func atomicFilesAndOpenedFilesAre0600() throws {
        try PrivateFiles.createDirectory(root.path)
        let file = try AtomicFile(path: root.path + "/out.gpx")
        try file.append(Array("x".utf8))
        try file.commit()
        #expect(permissions(root.path + "/out.gpx") == 0o600)
        let fd = PrivateFiles.open(root.path + "/recorder.lock", O_RDWR)
        #expect(fd >= 0)
        close(fd)
        #expect(permissions(root.path + "/recorder.lock") == 0o600)
        // Opening it again neither fails nor changes it.
        #expect(chmod(root.path + "/recorder.lock", 0o640) == 0)
        let again = PrivateFiles.open(root.path + "/recorder.lock", O_RDWR)
        #expect(again >= 0)
        close(again)
        #expect(permissions(root.path + "/recorder.lock") == 0o640)
    }
}
