import Foundation
import Synchronization

/// The collector's storage in memory, for in-process route tests (as Hummingbird's
/// `MemoryPersistDriver` beside its persist driver): the same answers as the files of
/// ``CollectorStorage``, and what was stored and logged to look at afterwards.
final class MemoryCollectorStorage: CollectorStorageDriver {
    /// A completed upload.
    struct Upload: Sendable, Equatable {
        var sid: String
        var bytes: [UInt8]
        /// The metadata's fields, plus `size` (as the JSON file of ``CollectorStorage`` has them;
        /// not `receivedAt`, which would make it differ from run to run).
        var fields: [String: String]
    }

    private struct State {
        var partial: [String: [UInt8]] = [:]
        var uploads: [String: Upload] = [:]
        var lines: [String] = []
    }

    private let state = Mutex(State())

    /// Storage that holds `stored` from the start, as if stored by an earlier run.
    init(stored: [CollectorMetadata] = []) {
        state.withLock { state in
            for metadata in stored {
                state.uploads[metadata.storageKey] = Upload(sid: "", bytes: [], fields: metadata.fields)
            }
        }
    }

    /// What was stored, by ``CollectorMetadata/storageKey``.
    var uploads: [String: Upload] { state.withLock { $0.uploads } }

    /// The lines logged about PUTs, as `ranges.log` of ``CollectorStorage`` has them.
    var ranges: [String] { state.withLock { $0.lines } }

    func storedKeys() throws -> Set<String> {
        state.withLock { Set($0.uploads.keys) }
    }

    func received(_ sid: String) -> Int64? {
        state.withLock { $0.partial[sid].map { Int64($0.count) } }
    }

    /// Each piece goes into the partial data as it comes, so that a status query meanwhile sees it.
    func appending(to sid: String) throws -> any PartialDataWriter {
        MemoryWriter(storage: self, sid: sid)
    }

    private final class MemoryWriter: PartialDataWriter {
        let storage: MemoryCollectorStorage
        let sid: String

        init(storage: MemoryCollectorStorage, sid: String) {
            self.storage = storage
            self.sid = sid
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            storage.state.withLock { $0.partial[sid, default: []].append(contentsOf: bytes) }
        }
    }

    func contents(of sid: String) throws -> [UInt8] {
        guard let bytes = state.withLock({ $0.partial[sid] }) else { throw CocoaError(.fileReadNoSuchFile) }
        return bytes
    }

    func discard(_ sid: String) {
        _ = state.withLock { $0.partial.removeValue(forKey: sid) }
    }

    func store(_ sid: String, metadata: CollectorMetadata, size: Int64) throws {
        try state.withLock { state in
            guard let bytes = state.partial.removeValue(forKey: sid) else { throw CocoaError(.fileNoSuchFile) }
            var fields = metadata.fields
            fields["size"] = String(size)
            state.uploads[metadata.storageKey] = Upload(sid: sid, bytes: bytes, fields: fields)
        }
    }

    func log(_ line: String) {
        state.withLock { $0.lines.append(line) }
    }
}
