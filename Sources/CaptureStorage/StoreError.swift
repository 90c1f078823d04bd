import Foundation
import GRDB

/// Why a storage operation failed. Every case reads as one line for a person.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No measurement with this id.
    case measurementNotFound(Int64)
    /// A measurement is already open (capturing or paused) in this data directory.
    case alreadyOpen(Int64)
    /// The disk (or the database's size limit) is full; nothing of the failed write was kept.
    case diskFull(path: String)
    /// The data directory cannot be created or written.
    case cannotOpen(path: String, reason: String)
    /// A write or sync of a file the store keeps failed (an `fdatasync` with EIO: the medium
    /// failing): what it held is not durable, and the sync is never tried again as if it were.
    case writeFailed(path: String, reason: String)
    /// The database file is damaged or is not a capture database.
    case corrupt(path: String, reason: String)
    /// Another process held the database longer than this one would wait; nothing of the
    /// failed operation was kept.
    case busy(path: String)
    /// Any other SQLite failure.
    case database(String)

    public var description: String {
        switch self {
        case .measurementNotFound(let id): "no measurement \(id)"
        case .alreadyOpen(let id): "measurement \(id) is still open"
        case .diskFull(let path):
            "the disk holding \(path) is full (or the store reached its size limit); nothing committed was lost"
        case .cannotOpen(let path, let reason): "cannot open the data directory \(path): \(reason)"
        case .writeFailed(let path, let reason): "writing \(path) failed: \(reason); what it held is not on the medium"
        case .corrupt(let path, let reason): "the database \(path) is damaged: \(reason)"
        case .busy(let path): "the database \(path) is busy: another process held it too long; try again"
        case .database(let message): "database error: \(message)"
        }
    }
}

// Mapping what SQLite and the file system throw to a ``StoreError``, once for the whole store.
extension Store {
    /// `error` as a ``StoreError``: SQLite's result codes as the cases they mean (a full disk,
    /// a busy or damaged database), a ``StoreError`` as it is, anything else as
    /// ``StoreError/database(_:)``. `path` is the database's, for the message.
    static func map(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return .diskFull(path: path)
            case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy(path: path)
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .corrupt(path: path, reason: error.message ?? "\(error)")
            case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
                return .cannotOpen(path: path, reason: error.message ?? "\(error)")
            default: return .database(error.message ?? "\(error)")
            }
        }
        return .database(reason(error))
    }

    /// The one-line reason of a Foundation or system error.
    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }

    /// Why `directory` cannot be made, if it or one of its parents is a file (Foundation only
    /// says "error 512").
    static func notADirectory(_ directory: String) -> String? {
        var path = directory
        while !path.isEmpty, path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                guard !isDirectory.boolValue else { return nil }
                return (path == directory ? "it is a file" : "\(path) is a file") + ", not a directory; choose another --data-dir"
            }
            path = (path as NSString).deletingLastPathComponent
        }
        return nil
    }
}
