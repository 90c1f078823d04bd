import Glibc

/// An exclusive `flock` on a file (`upload.lock` in the data directory, the recorder's lock in
/// its runtime directory), held while the value lives. The kernel releases it when the process
/// dies, however it dies, so a held lock means a live holder.
public struct ExclusiveFileLock: ~Copyable {
    private let fd: Int32

    /// Takes the lock on `path` (created 0600 if missing), or returns `nil` if another process
    /// holds it.
    public init?(path: String) {
        let fd = PrivateFiles.open(path, O_RDWR)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether another process holds the lock on `path` right now (a shared, non-blocking probe:
    /// nothing is created, and the lock is not kept).
    public static func isHeld(path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}
