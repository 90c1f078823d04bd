public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The permissions of everything capture keeps: a data directory holds where a person rode, so
/// the directory is made 0700 and every file written in it 0600, whatever the umask.
///
/// A directory or file that already exists keeps the mode it has: it is never changed behind
/// the user's back.
///
/// A directory or file created here is durable once the call returns: its parent directory is
/// fsynced, so a power cut cannot take the new name away while what was written and synced into
/// the file stays (docs/faults.md, "Power cuts": the recorder's log, an attachment's folder and
/// the flush log were lost that way).
///
/// ```swift
/// try PrivateFiles.createDirectory(dataDirectory)                  // 0700
/// let fd = PrivateFiles.open(dataDirectory + "/upload.lock", O_RDWR)   // 0600 if created
/// ```
public enum PrivateFiles {
    /// The mode of a directory capture creates: only its owner may list or enter it.
    public static let directoryMode: UInt32 = 0o700
    /// The mode of a file capture creates: only its owner may read or write it.
    public static let fileMode: UInt32 = 0o600

    /// Creates the directory `path` with mode 0700 whatever the umask; missing parents are
    /// created with the usual modes (they are not capture's). An existing directory is left as
    /// it is.
    ///
    /// - Throws: Foundation's error for a parent that cannot be made, or a
    ///   ``PrivateFiles/DirectoryError`` for the directory itself.
    public static func createDirectory(_ path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        if mkdir(path, mode_t(directoryMode)) == 0 {
            // mkdir applies the umask; a umask like 0277 would leave the directory unwritable.
            _ = chmod(path, mode_t(directoryMode))
            if let failed = syncParent(of: path) { throw DirectoryError(path: path, errno: failed) }
            return
        }
        let code = errno
        var isDirectory: ObjCBool = false
        if code == EEXIST, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        throw DirectoryError(path: path, errno: code)
    }

    /// Why a directory could not be created: `mkdir`'s error.
    public struct DirectoryError: Error, LocalizedError, CustomStringConvertible, Equatable {
        /// The directory.
        public var path: String
        /// The error number `mkdir` set.
        public var errno: Int32

        /// The system's words for it, such as `Permission denied`.
        public var description: String { String(cString: strerror(errno)) }
        public var errorDescription: String? { description }
    }

    /// Opens `path` with `flags` (`O_CREAT` is implied), creating it with mode 0600 whatever the
    /// umask; an existing file is opened as it is. Returns the descriptor (close-on-exec), or -1
    /// with `errno` set.
    public static func open(_ path: String, _ flags: Int32) -> Int32 {
        for _ in 0..<8 {
            let created = systemOpen(path, flags | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(fileMode))
            if created >= 0 {
                _ = fchmod(created, mode_t(fileMode))
                // A name the medium could not make durable is a failure, not a file to write into.
                if let failed = syncParent(of: path) {
                    close(created)
                    errno = failed
                    return -1
                }
                return created
            }
            guard errno == EEXIST else { return -1 }
            let existing = systemOpen(path, flags & ~(O_CREAT | O_EXCL) | O_CLOEXEC, 0)
            // Removed between the two calls: try creating it again.
            if existing >= 0 || errno != ENOENT { return existing }
        }
        return -1
    }

    /// Creates `path` as an empty file with mode 0600 whatever the umask, unless it exists; an
    /// existing file is never opened. Returns whether it exists now.
    ///
    /// For a SQLite database: closing any descriptor of a file releases every POSIX lock the
    /// process holds on it, SQLite's own included. Opening and closing a database that another
    /// connection of this process has open would drop that connection's locks: another process
    /// could then write under a reader, or (in WAL mode, as stores were before 2026-11-27) the
    /// next process to close its connection would checkpoint and delete the WAL under it, and
    /// every later commit of the first connection would go to a deleted file.
    public static func createIfAbsent(_ path: String) -> Bool {
        let created = systemOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(fileMode))
        guard created >= 0 else { return errno == EEXIST }
        _ = fchmod(created, mode_t(fileMode))
        close(created)
        return syncParent(of: path) == nil
    }

    /// fsyncs the directory holding `path`, so that a name just created or renamed there
    /// survives a power cut. Returns the error number when the medium failed the sync (`EIO`,
    /// say): the name may be gone after a cut, and the caller must not count it durable. A file
    /// system that cannot sync a directory at all (`EINVAL`, `ENOTSUP`, `ENOSYS`: some FUSE
    /// ones) keeps its names as it can, and that is no failure; nor is a directory that cannot
    /// be opened for reading (its names are synced by whoever made them).
    @discardableResult
    public static func syncParent(of path: String) -> Int32? {
        let parent = (path as NSString).deletingLastPathComponent
        let fd = systemOpen(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        while fsync(fd) != 0 {
            switch errno {
            case EINTR: continue
            case EINVAL, ENOTSUP, ENOSYS: return nil
            case let failed: return failed
            }
        }
        return nil
    }

    /// Sets the mode of a file capture has just created (a socket after `bind`, say) to 0600.
    public static func restrict(_ path: String) {
        _ = chmod(path, mode_t(fileMode))
    }

    private static func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #else
            Darwin.open(path, flags, mode)
        #endif
    }
}
