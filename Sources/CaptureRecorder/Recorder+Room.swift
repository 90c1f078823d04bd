import CaptureCore
import CaptureSensors
import CaptureStorage
import Glibc

// Room in the store: the budget kept as a power cut would leave it, and pruning for a full store.
extension Recorder {
    /// What the store is kept within: `retention.max_store_size` or the ceiling
    /// (`--max-store-size`), the smaller; nil with neither.
    var budget: StoreBudget? {
        [retention?.maxStoreSize?.bytes, ceiling].compactMap { $0 }.min().map(StoreBudget.init(bytes:))
    }

    /// With a `retention.max_store_size` or a ceiling (`--max-store-size`), the smaller: when
    /// the database, plus what `staged` bytes in the flush log add once applied, plus the
    /// headroom for other writers (``StoreBudget``), is over it, removes delivered rides
    /// (earliest delivered first, as ``retention`` allows) until it is within, so that a power
    /// cut at any moment leaves the store within its budget. Nothing unsent goes unless the
    /// policy says so; when nothing may go the store stays as it is (the ceiling then decides,
    /// ``pruneForRoom()``). Reads only the file's size when within. Returns whether the store
    /// is within (true when there is no budget).
    @discardableResult
    func keepWithinBudget(staged: Int) -> Bool {
        guard let budget else { return true }
        guard !budget.holds(size: store.fileSize(), staged: staged) else { return true }
        if let policy = retention {
            _ = try? store.makeRoom(policy, target: budget.target(staged: staged), now: clock(), directory: directory)
        }
        return budget.holds(size: store.fileSize(), staged: staged)
    }

    /// For a store found full (a commit failed): removes as ``retention`` allows at least one
    /// measurement, and as many as bring the store within its budget with what is staged
    /// (``keepWithinBudget(staged:)``). Returns how many went; 0 when nothing may go.
    func pruneForRoom() -> Int {
        guard let policy = retention, let inUse = try? store.bytesInUse() else { return 0 }
        let staged = lane.withLock { $0.staged?.stagedWeight ?? 0 }
        // One byte less than in use: at least one measurement goes, whatever the budget.
        var target = inUse - 1
        if let budget { target = min(target, budget.target(staged: staged)) }
        guard let report = try? store.makeRoom(policy, target: target, now: clock(), directory: directory) else { return 0 }
        return report.removed.count
    }

    /// Whether rides may begin in the store (``RecorderStateMachine/outOfRoom(at:)``), with
    /// `staged` bytes in the flush log: with a budget, once the database uses at most what the
    /// budget holds with them (``StoreBudget/target(staged:)``), less ``StoreBudget/roomToResume``
    /// when `toResume` (so that a recorder waiting for room does not begin a ride that fills the
    /// store again at once), delivered rides pruned for it as ``retention`` allows; without one
    /// (a full disk), once the file system has ``StoreBudget/roomOnDisk`` free.
    func hasRoom(staged: Int, toResume: Bool) -> Bool {
        guard let budget else {
            var stats = statvfs()
            guard statvfs(directory, &stats) == 0 else { return false }
            return Int64(stats.f_bavail) * Int64(stats.f_frsize) >= StoreBudget.roomOnDisk
        }
        let target = budget.target(staged: staged) - (toResume ? budget.roomToResume : 0)
        if let policy = retention { _ = try? store.makeRoom(policy, target: target, now: clock(), directory: directory) }
        guard let used = try? store.bytesInUse() else { return false }
        return used <= target
    }

    /// Applies what a recorder that died left in the flush log, pruning for room as a full
    /// store needs; what still does not fit, or what another process keeps out for longer than
    /// a lifecycle command waits, is left for ``StagedCommits`` (which stages it again).
    func applyLeftFlushLog() {
        while true {
            do throws(StoreError) {
                try store.applyFlushLog(wait: true, dropping: false, patience: StagedCommits.lifecyclePatience)
                return
            } catch .diskFull {
                if pruneForRoom() == 0 { return }
            } catch {
                // StagedCommits applies it again and reports what fails.
                return
            }
        }
    }
}
