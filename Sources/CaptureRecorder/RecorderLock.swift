import CaptureStorage
import Glibc

/// The lock a running recorder holds on `recorder.lock` in its data directory's
/// ``RuntimeDirectory`` (not in the data directory, which may be on a file system without
/// locks or sockets).
///
/// The kernel releases it when the process dies, however it dies, so "held" means "a recorder
/// is alive" and a free lock with an open measurement means the recorder was interrupted.
package struct RecorderLock: ~Copyable {
    private let lock: ExclusiveFileLock

    /// Takes the lock for the data directory `directory` (creating its runtime directory), or
    /// returns `nil` if another process holds it.
    ///
    /// - Throws: ``RuntimeDirectoryError`` when the runtime directory cannot be made or is not
    ///   this user's alone.
    package init?(directory: String) throws(RuntimeDirectoryError) {
        let runtime = RuntimeDirectory(dataDirectory: directory)
        try runtime.create()
        guard let lock = ExclusiveFileLock(path: runtime.lockFile) else { return nil }
        self.lock = lock
    }

    /// Whether a recorder holds the lock for the data directory `directory` right now (nothing
    /// is created).
    package static func isHeld(directory: String) -> Bool {
        ExclusiveFileLock.isHeld(path: RuntimeDirectory(dataDirectory: directory).lockFile)
    }
}
