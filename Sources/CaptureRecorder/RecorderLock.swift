import CaptureStorage
import Glibc

/// The lock a running recorder holds on `recorder.lock` in the data directory.
///
/// The kernel releases it when the process dies, however it dies, so "held" means "a recorder
/// is alive" and a free lock with an open measurement means the recorder was interrupted.
public struct RecorderLock: ~Copyable {
    private let fd: Int32

    /// Takes the lock, or returns `nil` if another process holds it.
    public init?(directory: String) {
        let fd = PrivateFiles.open(directory + "/recorder.lock", O_RDWR)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether a recorder holds the lock for `directory` right now.
    public static func isHeld(directory: String) -> Bool {
        let fd = open(directory + "/recorder.lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}
