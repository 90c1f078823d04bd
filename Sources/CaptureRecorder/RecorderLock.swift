import CaptureStorage
import Glibc

/// The lock a running recorder holds on `recorder.lock` in the data directory.
///
/// The kernel releases it when the process dies, however it dies, so "held" means "a recorder
/// is alive" and a free lock with an open measurement means the recorder was interrupted.
public struct RecorderLock: ~Copyable {
    private let lock: ExclusiveFileLock

    /// Takes the lock, or returns `nil` if another process holds it.
    public init?(directory: String) {
        guard let lock = ExclusiveFileLock(path: directory + "/recorder.lock") else { return nil }
        self.lock = lock
    }

    /// Whether a recorder holds the lock for `directory` right now.
    public static func isHeld(directory: String) -> Bool {
        ExclusiveFileLock.isHeld(path: directory + "/recorder.lock")
    }
}
