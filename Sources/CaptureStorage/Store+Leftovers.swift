import Foundation
import GRDB

extension Store {
    /// Removes the files of measurements that are no longer in the store, and makes their
    /// removal durable: cached transfer files with their sidecars and temporary files
    /// (`transfer/ID.ccyf`, `transfer/ID.ccyf.meta`, `transfer/.ID.ccyf.XXXXXX`) and attachment
    /// folders (`attachments/ID`). Returns the names removed, relative to `directory`.
    ///
    /// A removal commits the measurement's rows first and removes its files afterwards, and an
    /// unlink is not on the medium until its directory is synced: a power cut in between (or
    /// before that sync) leaves the files of a ride the store no longer knows, which nothing
    /// else would ever remove (issue 28: 2 of 5 cuts of `capture sync` with pruning, seed 5).
    /// This sweep runs after every prune, so the next pass after such a cut removes them; it
    /// then fsyncs each directory it changed, so that what retention removed stays removed.
    ///
    /// Only ids the store has handed out count (at most `sqlite_sequence`'s): a measurement
    /// being created right now, whose row is not committed yet, is never swept; nor one the
    /// recorder reserved (``reserveMeasurementIDs(keeping:patience:)``), whose ride may have
    /// begun in the flush log with its journal already written.
    @discardableResult
    public func removeLeftovers(in directory: String) throws(StoreError) -> [String] {
        let (kept, highest, reserved): (Set<Int64>, Int64, ClosedRange<Int64>?)
        do {
            (kept, highest, reserved) = try queue.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT reserved_next, reserved_last FROM flush_log WHERE id = 1")
                let next: Int64? = row?["reserved_next"]
                let last: Int64? = row?["reserved_last"]
                return (
                    Set(try Int64.fetchAll(db, sql: "SELECT id FROM measurement")),
                    try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'measurement'") ?? 0,
                    next.flatMap { next in last.flatMap { next <= $0 ? next...$0 : nil } }
                )
            }
        } catch {
            throw Self.map(error, path: path)
        }
        func gone(_ id: Int64?) -> Bool {
            id.map { $0 <= highest && !kept.contains($0) && !(reserved?.contains($0) ?? false) } ?? false
        }
        var removed: [String] = []
        let manager = FileManager.default
        for (folder, id) in [
            ("transfer", { (name: Substring) in Int64(name.drop { $0 == "." }.prefix { $0 != "." }) }),
            ("attachments", { (name: Substring) in Int64(name) }),
        ] as [(String, (Substring) -> Int64?)] {
            let path = (directory as NSString).appendingPathComponent(folder)
            var changed = false
            for name in (try? manager.contentsOfDirectory(atPath: path)) ?? [] where gone(id(Substring(name))) {
                guard (try? manager.removeItem(atPath: path + "/" + name)) != nil else { continue }
                removed.append(folder + "/" + name)
                changed = true
            }
            // Best effort: a removal a cut undoes is found again by the next call.
            if changed { PrivateFiles.syncParent(of: path + "/.") }
        }
        return removed
    }
}
