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
        case .corrupt(let path, let reason): "the database \(path) is damaged: \(reason)"
        case .busy(let path): "the database \(path) is busy: another process held it too long; try again"
        case .database(let message): "database error: \(message)"
        }
    }
}
