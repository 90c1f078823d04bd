import Foundation

/// Whether a path is a data directory capture may use: one it made (it holds `capture.sqlite`),
/// one that does not exist yet, or an empty one. A file, or a directory that holds other
/// things and no store (`/etc`, a home directory), is refused before anything reads or reports
/// on it, so that no command treats it as an idle data directory or advises changing its mode.
///
/// ```swift
/// if let store = try DataDirectory.existingStore(at: directory) { … }   // nil: nothing recorded yet
/// ```
public enum DataDirectory {
    /// The names capture itself puts into a data directory besides `capture.*` (the store, its
    /// journal, the flush log): a directory holding only these is one of capture's, even
    /// before its first measurement.
    static let ownPrefixes = ["capture.", "upload.", "recorder.", "sync.", "control."]
    static let ownNames: Set<String> = ["transfer", "attachments"]

    /// Refuses `path` if it is not a data directory (see ``DataDirectory``).
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` saying why: a file, or a directory with
    ///   other things in it (naming one) and no store.
    public static func check(_ path: String) throws(StoreError) {
        if let file = Store.notADirectory(path) { throw .cannotOpen(path: path, reason: file) }
        let store = (path as NSString).appendingPathComponent("capture.sqlite")
        guard !FileManager.default.fileExists(atPath: store),
            let entries = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return }
        let foreign = entries.filter { name in
            !ownNames.contains(name) && !ownPrefixes.contains { name.hasPrefix($0) }
        }.sorted()
        guard let first = foreign.first else { return }
        let more = foreign.count > 1 ? " and \(foreign.count - 1) more" : ""
        throw .cannotOpen(
            path: path,
            reason: "it is not a capture data directory: it holds other files (\(first)\(more)) and no capture.sqlite; "
                + "choose a new or empty directory with --data-dir")
    }

    /// The store of the data directory at `path`, or nil when nothing has been recorded there
    /// yet; nothing is created.
    ///
    /// - Throws: ``StoreError`` for a path that is not a data directory (``check(_:)``) or a
    ///   store that cannot be opened.
    public static func existingStore(at path: String, durability: Store.Durability = .everyCommit) throws(StoreError)
        -> Store?
    {
        try check(path)
        guard FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("capture.sqlite")) else {
            return nil
        }
        return try Store(directory: path, durability: durability)
    }
}
