import CaptureStorage
import Crypto
import Foundation
import Testing

@Suite struct TransferFileHashingTests {
    let directory = TemporaryDirectory()

    @Test func hashingAFileGivesItsSizeAndSHA256() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let path = directory.path + "/file.bin"
        // Over one read of 1 MiB, so the hash spans several reads.
        let bytes = Data((0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let file = try TransferFile(hashing: path)
        #expect(file.path == path && file.size == Int64(bytes.count))
        #expect(file.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        let empty = directory.path + "/empty"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(try TransferFile(hashing: empty).sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hashingTheCachedFileAgreesWithTheStore() throws {
        let store = try Store(directory: directory.path)
        let id = try Measurements.twoTracks(in: store)
        let cached = try store.transferFile(for: id, directory: directory.path)
        #expect(try TransferFile(hashing: cached.path) == cached)
    }

    @Test func anUnreadableFileIsATypedError() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let missing = directory.path + "/missing"
        #expect(throws: TransferError.cannotRead(path: missing, reason: "No such file or directory")) {
            try TransferFile(hashing: missing)
        }
        #expect(throws: TransferError.cannotRead(path: directory.path, reason: "not a regular file")) {
            try TransferFile(hashing: directory.path)
        }
        // A FIFO with no writer is refused at once; opening it for reading would block.
        let fifo = directory.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: TransferError.cannotRead(path: fifo, reason: "not a regular file")) {
            try TransferFile(hashing: fifo)
        }
        #expect(TransferError.cannotRead(path: missing, reason: "x").description == "cannot read \(missing): x")
    }
}
