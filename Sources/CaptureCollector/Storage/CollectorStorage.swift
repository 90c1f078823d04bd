import Foundation
import Glibc
import Synchronization
import SystemPackage

/// The collector's storage in its data directory: the one it runs with
/// (``CollectorStorageDriver``).
///
/// Layout (no part of a request ever becomes a path: files are named by server-made session ids):
/// - `partial/<sid>`: the bytes received so far for an open session;
/// - `measurements/<sid>.ccyf` and `measurements/<sid>.json`: a completed upload and its
///   metadata, each written under a temporary name and then renamed, the JSON last, so a
///   measurement counts as stored exactly when its JSON exists; `attachments/<sid>.bin` and
///   `attachments/<sid>.json` alike for an attachment;
/// - `ranges.log`: one line per PUT, `<sid> <from>-<to>/<total> <status>` (or `<sid> */<total>
///   <status>` for status queries), so tests can see where a resumed upload started.
final class CollectorStorage: CollectorStorageDriver {
    let directory: String
    private let logLock = Mutex(())

    /// Prepares `directory`: creates its folders, drops the partial data and temporary files of
    /// an earlier run.
    init(directory: String) throws {
        self.directory = directory
        let fm = FileManager.default
        for sub in ["partial", "measurements", "attachments"] {
            try fm.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        // Sessions live in memory only: partial data of a previous run can never be resumed.
        for name in try fm.contentsOfDirectory(atPath: directory + "/partial") {
            try? fm.removeItem(atPath: directory + "/partial/" + name)
        }
        for folder in ["measurements", "attachments"] {
            for name in try fm.contentsOfDirectory(atPath: directory + "/" + folder) where name.hasSuffix(".tmp") {
                try? fm.removeItem(atPath: directory + "/" + folder + "/" + name)
            }
        }
    }

    /// The keys of the uploads whose JSON is in `measurements/` or `attachments/`.
    func storedKeys() throws -> Set<String> {
        let fm = FileManager.default
        var stored: Set<String> = []
        for folder in ["measurements", "attachments"] {
            for name in try fm.contentsOfDirectory(atPath: directory + "/" + folder) where name.hasSuffix(".json") {
                let path = directory + "/" + folder + "/" + name
                if let data = fm.contents(atPath: path),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let device = object["deviceId"] as? String, let measurement = object["measurementId"] as? String
                {
                    stored.insert(device + "/" + measurement + ((object["attachmentId"] as? String).map { "/" + $0 } ?? ""))
                }
            }
        }
        return stored
    }

    func partialPath(_ sid: String) -> String { directory + "/partial/" + sid }

    /// The size of `partial/<sid>` now; nil when there is no such file.
    func received(_ sid: String) -> Int64? {
        var info = stat()
        return stat(partialPath(sid), &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Appends to `partial/<sid>` through one descriptor for the whole request.
    func appending(to sid: String) throws -> any PartialDataWriter {
        let descriptor = open(partialPath(sid), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partialPath(sid)]) }
        return FileWriter(descriptor: descriptor)
    }

    /// Appends to an open partial file; closes it when released.
    private final class FileWriter: PartialDataWriter {
        let descriptor: Int32

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            do {
                try FileDescriptor(rawValue: descriptor).writeAll(bytes)
            } catch {
                throw CocoaError(.fileWriteUnknown)
            }
        }
    }

    func contents(of sid: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: partialPath(sid))))
    }

    func discard(_ sid: String) {
        try? FileManager.default.removeItem(atPath: partialPath(sid))
    }

    /// Renames `partial/<sid>` into `measurements/` (`attachments/`), then writes the JSON
    /// beside it, which makes it stored.
    func store(_ sid: String, metadata: CollectorMetadata, size: Int64) throws {
        let attachment = metadata.attachmentID != nil
        let base = directory + (attachment ? "/attachments/" : "/measurements/") + sid
        try Self.rename(partialPath(sid), to: base + (attachment ? ".bin" : ".ccyf"))
        var object = metadata.fields
        object["receivedAt"] = String(Int64(Date().timeIntervalSince1970 * 1000))
        object["size"] = String(size)
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try json.write(to: URL(fileURLWithPath: base + ".json.tmp"))
        try Self.rename(base + ".json.tmp", to: base + ".json")
    }

    /// Appends one line to `ranges.log`.
    func log(_ line: String) {
        logLock.withLock { _ in
            let path = directory + "/ranges.log"
            let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    private static func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: to])
        }
    }
}
