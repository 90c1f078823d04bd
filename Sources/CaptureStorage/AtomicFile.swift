import Foundation
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written under a temporary name in its final directory, then fsynced and renamed into
/// place (and the directory fsynced), or discarded. Readers see the old file or the whole new one.
///
/// ```swift
/// let file = try AtomicFile(path: "/tmp/out.gpx")
/// try file.append(Array(text.utf8))
/// try file.commit()          // or file.discard(); dropping it uncommitted discards it too
/// ```
public final class AtomicFile {
    /// The final path.
    public let path: String
    /// The temporary file's path while it is being written.
    public private(set) var temporaryPath: String
    private var descriptor: Int32

    /// Creates `<dir>/.<name>.XXXXXX` next to `path` (mode 0600 whatever the umask: what capture
    /// writes says where a person rode; see ``PrivateFiles``).
    ///
    /// - Throws: ``TransferError/io(path:reason:)`` when the directory is not writable
    ///   (``StoreError/diskFull(path:)`` in ``TransferError/store(_:)`` when it is full).
    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var template = Array("\(directory.isEmpty ? "." : directory)/.\(name).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Self.failure(errno, path: path) }
        descriptor = fd
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        _ = fchmod(fd, mode_t(PrivateFiles.fileMode))
    }

    deinit {
        if descriptor >= 0 { discard() }
    }

    /// Appends `bytes`, retrying short writes and interrupts (swift-system's `writeAll`).
    public func append(_ bytes: [UInt8]) throws {
        do {
            try FileDescriptor(rawValue: descriptor).writeAll(bytes)
        } catch let error as Errno {
            throw Self.failure(error.rawValue, path: path)
        }
    }

    /// fsync, close, rename into place, fsync the directory.
    public func commit() throws {
        let failure = { Self.failure(errno, path: self.path) }
        guard fsync(descriptor) == 0 else {
            let error = failure()
            discard()
            throw error
        }
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else {
            let error = failure()
            _ = unlink(temporaryPath)
            throw error
        }
        guard rename(temporaryPath, path) == 0 else {
            let error = failure()
            _ = unlink(temporaryPath)
            throw error
        }
        // The new name is in place; a directory sync the medium failed leaves it unsure across a
        // power cut, which the caller must hear (the old file may come back).
        if let failed = PrivateFiles.syncParent(of: path) { throw Self.failure(failed, path: path) }
    }

    /// A failed call on the file: a full medium (ENOSPC, EDQUOT) is the store's disk-full fault
    /// (exit 73, as for the database), anything else an I/O error.
    static func failure(_ code: Int32, path: String) -> TransferError {
        code == ENOSPC || code == EDQUOT
            ? .store(.diskFull(path: path)) : .io(path: path, reason: String(cString: strerror(code)))
    }

    /// Closes and deletes the temporary file.
    public func discard() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
        _ = unlink(temporaryPath)
    }
}
