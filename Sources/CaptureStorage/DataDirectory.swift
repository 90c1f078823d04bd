import Foundation

/// Whether a path is a data directory capture may use: one it made (it holds `capture.sqlite`),
/// one that does not exist yet, an empty one, or one with a few files of the user's (a trace
/// kept beside the rides). A file, or a directory that holds other directories or hidden files
/// and no store (`/etc`, a home directory, a project tree), is refused before anything reads
/// or reports on it, so that no command treats it as an idle data directory or advises changing
/// its mode.
///
/// ```swift
/// if let store = try DataDirectory.existingStore(at: directory) { … }   // nil: nothing recorded yet
/// ```
public enum DataDirectory {
    /// The names capture itself puts into a data directory besides `capture.*` (the store, its
    /// journal, the flush log; `web.token`, the page's access token): a directory holding only these is one of capture's, even
    /// before its first measurement.
    static let ownPrefixes = ["capture.", "upload.", "recorder.", "sync.", "control.", "web."]
    static let ownNames: Set<String> = ["transfer", "attachments"]

    /// Refuses `path` if it is not a data directory (see ``DataDirectory``).
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` saying why: a file, or a directory with
    ///   other things in it (naming one) and no store.
    public static func check(_ path: String) throws(StoreError) {
        if let file = Store.notADirectory(path) { throw .cannotOpen(path: path, reason: file) }
        let foreign = foreignEntries(path)
        let telling = foreign.contains { name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name), isDirectory: &isDirectory)
            return name.hasPrefix(".") || isDirectory.boolValue
        }
        guard telling, let first = foreign.first else { return }
        let more = foreign.count > 1 ? " and \(foreign.count - 1) more" : ""
        throw .cannotOpen(
            path: path,
            reason: "it is not a capture data directory: it holds other files (\(first)\(more)) and no capture.sqlite; "
                + "choose a new or empty directory with --data-dir")
    }

    /// What `path` holds that capture did not put there, sorted; empty when it holds a store
    /// (then it is capture's whatever else is in it), does not exist, or holds only capture's.
    static func foreignEntries(_ path: String) -> [String] {
        let store = (path as NSString).appendingPathComponent("capture.sqlite")
        guard !FileManager.default.fileExists(atPath: store),
            let entries = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return [] }
        return entries.filter { name in !ownNames.contains(name) && !ownPrefixes.contains { name.hasPrefix($0) } }.sorted()
    }

    /// Whether capture may treat `path` as its own, to report its mode: it holds a store, or
    /// nothing but capture's files (or nothing yet).
    public static func isCaptures(_ path: String) -> Bool {
        Store.notADirectory(path) == nil && foreignEntries(path).isEmpty
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
