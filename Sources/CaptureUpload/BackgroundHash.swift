public import CaptureStorage
import Foundation
import Synchronization

/// The SHA-256 of a file given as it is (`--transfer-file`), computed on a thread of its own
/// while the upload goes on, rather than before its first byte.
///
/// The hash is stored with the session only so that a later run resumes the session for exactly
/// these bytes. A measurement's own transfer file has it from the cache; a 200 MB file given as it
/// is took about 0.2 s to hash first, a third of `capture upload`'s time (BENCHMARKS.md, Upload).
/// Until the hash is known the upload's row has none, and a run killed in that window (the
/// hash's time, not the upload's) leaves a session that the next run cannot match to the file:
/// it starts again from byte 0 rather than resume it.
///
/// ``withHash(_:)`` and the thread's ``init(path:size:whenKnown:)`` callback hold the same lock,
/// so a store write of the session (with the hash as then known) and the write of the hash
/// never pass each other.
final class BackgroundHash: Sendable {
    private let hash = Mutex<String?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts hashing `path` (`size` bytes, as stat'ed before); `whenKnown` is called with the
    /// hash under the lock once it is known. A file that cannot be read or changed size leaves
    /// the hash unknown: the upload itself reports the file.
    init(path: String, size: Int64, whenKnown: @escaping @Sendable (String) -> Void) {
        let thread = Thread { [self] in
            if let file = try? TransferFile(hashing: path), file.size == size {
                hash.withLock { hash in
                    hash = file.sha256
                    whenKnown(file.sha256)
                }
            }
            done.signal()
        }
        thread.start()
    }

    /// Runs `body` with the hash as known now (nil: not yet), holding the lock.
    func withHash<T>(_ body: (String?) throws -> T) rethrows -> T {
        try hash.withLock { try body($0) }
    }

    /// Waits until the hashing has ended (and the hash, if known, is stored).
    func wait() {
        done.wait()
        done.signal()
    }
}
