import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureStorage

/// Retention: what `Store.prune` may remove, and that nothing nobody received goes unless
/// `drop_unsent: oldest` says so.
@Suite struct RetentionTests {
    let directory = TemporaryDirectory()
    let store: Store
    static let day: Int64 = 86_400_000

    init() throws {
        store = try Store(directory: directory.path)
    }

    /// A finished measurement of `samples` accelerometer samples, stopped at `end`.
    @discardableResult
    func record(_ store: Store, end: Int64, samples: Int = 2_000) throws -> Int64 {
        var engine = Recording()
        let start = end - Int64(samples) * 10
        let id = try store.begin(try engine.apply(.start(.bicycle), at: start), sources: "trace:x")
        for index in 0..<samples {
            engine.ingest(.motion(.accelerometer, MotionSample(timestamp: start + Int64(index) * 10, x: Double(index % 97), y: 1, z: 9.81)))
            engine.ingest(.motion(.gyroscope, MotionSample(timestamp: start + Int64(index) * 10, x: Double(index % 89), y: 2, z: 3)))
        }
        try store.commit(engine.takeFlush(), to: id)
        try store.commit(try engine.apply(.stop, at: end), to: id)
        return id
    }

    /// Marks `id` delivered at `time`: `finishUpload` stamps the wall clock, moved here onto the
    /// test's timeline.
    func deliver(_ id: Int64, at time: Int64, in store: Store) throws {
        try store.finishUpload(of: id, status: .uploaded)
        try store.write { db in
            try db.execute(sql: "UPDATE upload SET uploaded_at = ? WHERE measurement_id = ?", arguments: [time, id])
        }
    }

    func ids(_ store: Store) throws -> Set<Int64> { Set(try store.measurements().map(\.id)) }

    @Test func deliveredMeasurementsGoAfterTheirDaysUnsentOnesStay() throws {
        let now = 100 * Self.day
        let old = try record(store, end: now - 40 * Self.day)
        let recent = try record(store, end: now - 5 * Self.day)
        let unsent = try record(store, end: now - 60 * Self.day)
        try deliver(old, at: now - 35 * Self.day, in: store)
        try deliver(recent, at: now - 4 * Self.day, in: store)
        let report = try store.prune(RetentionPolicy(keepUploadedDays: 30), now: now, directory: directory.path)
        #expect(report.removed.map(\.measurement) == [old])
        #expect(try ids(store) == [recent, unsent])
        #expect(try store.discardedCount() == 0)
        #expect(try store.deliveryTotals().delivered == 2)
    }

    /// A power cut after a removal was committed and before its files were gone (or before the
    /// unlinks reached the medium) leaves the files of a ride the store no longer knows: the
    /// next prune removes them, whatever it removes itself, and leaves the files of every
    /// measurement still there, and of an id not handed out yet, alone.
    @Test func aPruneRemovesTheFilesOfRidesRemovedBeforeACut() throws {
        let now = 100 * Self.day
        let removed = try record(store, end: now - 3 * Self.day)
        let kept = try record(store, end: now - 2 * Self.day)
        // The cut: the rows of `removed` are gone, its files are still there.
        try store.delete(removed)
        let manager = FileManager.default
        for id in [removed, kept, kept + 1] {
            try PrivateFiles.createDirectory(directory.path + "/attachments/\(id)")
            try Data("{}\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/attachments/\(id)/notes.json"))
            try PrivateFiles.createDirectory(directory.path + "/transfer")
            for name in ["\(id).ccyf", "\(id).ccyf.meta", ".\(id).ccyf.Ab12Cd"] {
                try Data("x".utf8).write(to: URL(fileURLWithPath: directory.path + "/transfer/" + name))
            }
        }
        let report = try store.prune(RetentionPolicy(keepUploadedDays: 30), now: now, directory: directory.path)
        #expect(report.removed.isEmpty)
        #expect(!manager.fileExists(atPath: directory.path + "/attachments/\(removed)"))
        #expect(try manager.contentsOfDirectory(atPath: directory.path + "/transfer").sorted() == [
            ".\(kept).ccyf.Ab12Cd", ".\(kept + 1).ccyf.Ab12Cd", "\(kept).ccyf", "\(kept).ccyf.meta", "\(kept + 1).ccyf", "\(kept + 1).ccyf.meta",
        ])
        #expect(try manager.contentsOfDirectory(atPath: directory.path + "/attachments").sorted() == ["\(kept)", "\(kept + 1)"].sorted())
        #expect(try store.removeLeftovers(in: directory.path).isEmpty, "nothing left to remove")
    }

    /// A store with a long delivered ride (day 98) and a short one not sent (day 99).
    func deliveredRideAndAnother() throws -> (Store, delivered: Int64, unsent: Int64) {
        let store = try Store(directory: directory.path)
        let delivered = try record(store, end: 98 * Self.day, samples: 20_000)
        let unsent = try record(store, end: 99 * Self.day)
        try store.finishUpload(of: delivered, status: .uploaded)
        return (store, delivered, unsent)
    }

    /// On a full file system a ride goes in small transactions (``Store/removeInSteps``): the
    /// same rows go as with one, and its tombstone is written first.
    @Test func aRemovalInStepsLeavesWhatARemovalInOneLeaves() throws {
        let (store, delivered, kept) = try deliveredRideAndAnother()
        let now = 100 * Self.day
        let removed = try store.queue.writeWithoutTransaction { db in
            try Store.removeInSteps(db, delivered, tombstone: (now, "for room", false))
        }
        #expect(removed)
        #expect(try ids(store) == [kept])
        #expect(try store.prunedDeliveredCount() == 1)
        let left = try store.queue.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM sensor_batch WHERE measurement_id = ?1) + (SELECT COUNT(*) FROM upload WHERE measurement_id = ?1)", arguments: [delivered])
        }
        #expect(left == 0)
        #expect(try store.queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// A cut in the middle of a removal in steps leaves the ride with its tombstone and part of
    /// its data: the next prune finishes it, whatever its policy says.
    @Test func aRemovalInStepsCutHalfWayIsFinishedByTheNextPrune() throws {
        let (store, delivered, unsent) = try deliveredRideAndAnother()
        let now = 100 * Self.day
        // The cut: the tombstone and a few steps committed.
        try store.write { db in
            try db.execute(
                sql: """
                    INSERT INTO measurement_tombstone (measurement_id, removed_at, reason, discarded, start_ts, end_ts)
                    SELECT id, ?, 'for room', 0, start_ts, end_ts FROM measurement WHERE id = ?
                    """, arguments: [now, delivered])
            try db.execute(
                sql: "DELETE FROM sensor_batch WHERE id IN (SELECT id FROM sensor_batch WHERE measurement_id = ? LIMIT 3)",
                arguments: [delivered])
        }
        // Until then it counts once, as what it still is: delivered, not pruned.
        #expect(try store.deliveryTotals().delivered == 1)
        #expect(try store.prunedDeliveredCount() == 0)
        _ = try store.prune(RetentionPolicy(keepUploadedDays: 30), now: now, directory: directory.path)
        #expect(try ids(store) == [unsent])
        #expect(try store.prunedDeliveredCount() == 1)
        #expect(try store.deliveryTotals().delivered == 1)
    }

    @Test func overBudgetTheEarliestDeliveredGoFirstAndUnsentOnlyWithOldest() throws {
        let now = 100 * Self.day
        let first = try record(store, end: now - 3 * Self.day)
        let second = try record(store, end: now - 2 * Self.day)
        let unsentOld = try record(store, end: now - 9 * Self.day)
        let unsentNew = try record(store, end: now - 1 * Self.day)
        // Delivered in this order: `second` a day before `first`.
        try deliver(second, at: now - 2 * Self.day, in: store)
        try deliver(first, at: now - Self.day, in: store)
        let size = try store.databaseSize()
        // A budget a little under what is in use: one delivered measurement must go.
        let budget = RetentionPolicy(keepUploadedDays: nil, maxStoreSize: ByteSize(bytes: size - 4096)!)
        let dry = try store.prune(budget, now: now, directory: directory.path, dryRun: true)
        #expect(dry.removed.map(\.measurement) == [second])
        #expect(try ids(store).count == 4, "a dry run changes nothing")

        let tiny = RetentionPolicy(keepUploadedDays: nil, maxStoreSize: ByteSize(bytes: 8192)!)
        let kept = try store.prune(tiny, now: now, directory: directory.path)
        #expect(kept.removed.map(\.measurement) == [second, first])
        #expect(kept.overBudget)
        #expect(try ids(store) == [unsentOld, unsentNew], "nothing unsent goes with drop_unsent: never")

        let dropping = RetentionPolicy(keepUploadedDays: nil, maxStoreSize: ByteSize(bytes: 8192)!, dropUnsent: .oldest)
        let dropped = try store.prune(dropping, now: now, directory: directory.path)
        #expect(dropped.removed.map(\.measurement) == [unsentOld, unsentNew])
        #expect(dropped.removed.allSatisfy { $0.discarded })
        #expect(try store.discardedCount() == 2)
        let totals = try store.deliveryTotals()
        #expect(totals.delivered == 2 && totals.discarded == 2 && totals.waiting == 0)
        // The space went back to the file system: what is left is about an empty store's size
        // (its schema; a few pages more for the tombstones of what was removed).
        let empty = TemporaryDirectory()
        let floor = try Store(directory: empty.path).databaseSize()
        #expect(dropped.bytesAfter <= floor + 4 * 4096, "\(dropped.bytesAfter) left of \(size); an empty store has \(floor)")
        #expect(dropped.bytesAfter < size, "\(dropped.bytesAfter) of \(size)")
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func theOpenMeasurementIsNeverTouched() throws {
        var engine = Recording()
        let open = try store.begin(try engine.apply(.start(.car), at: 1_000), sources: "trace:x")
        let policy = RetentionPolicy(keepUploadedDays: 0, maxStoreSize: ByteSize(bytes: 4096)!, dropUnsent: .oldest)
        let report = try store.prune(policy, now: 10 * Self.day, directory: directory.path)
        #expect(report.removed.isEmpty)
        #expect(try ids(store) == [open])
    }

    /// Property: over random sequences of recording, delivering, pruning with random policies
    /// and reopening the store (a crash between transactions), a measurement nobody received is
    /// only ever gone with a discarded tombstone, written by a prune whose policy said `oldest`.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func nothingUnsentIsEverLost(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var store = try Store(directory: directory.path)
        var now = 10 * Self.day
        var delivered: Set<Int64> = []
        var mayBeDiscarded: Set<Int64> = []
        var recorded: Set<Int64> = []
        for _ in 0..<40 {
            now += Int64(random.next() % UInt64(2 * Self.day))
            switch random.next() % 5 {
            case 0, 1:
                recorded.insert(try record(store, end: now, samples: 200 + Int(random.next() % 2_000)))
            case 2:
                let waiting = try store.measurements().map(\.id).filter { !delivered.contains($0) }
                if let id = waiting.randomElement(using: &random) {
                    try store.finishUpload(of: id, status: .uploaded)
                    delivered.insert(id)
                }
            case 3:
                let drop: RetentionPolicy.UnsentDrop = random.next() % 3 == 0 ? .oldest : .never
                let policy = RetentionPolicy(
                    keepUploadedDays: random.next() % 2 == 0 ? nil : Int(random.next() % 5),
                    maxStoreSize: random.next() % 2 == 0 ? nil : ByteSize(bytes: Int64(8_192 + random.next() % 400_000))!,
                    dropUnsent: drop)
                let before = try ids(store).subtracting(delivered)
                let report = try store.prune(policy, now: now, directory: directory.path)
                for removed in report.removed where !delivered.contains(removed.measurement) {
                    #expect(removed.discarded && drop == .oldest, "seed \(seed): unsent \(removed.measurement) removed by \(policy)")
                }
                if drop == .oldest { mayBeDiscarded.formUnion(before) }
            default:
                store = try Store(directory: directory.path)
            }
            let present = try ids(store)
            let discarded = Set(try store.read { db in
                try Int64.fetchAll(db, sql: "SELECT measurement_id FROM measurement_tombstone WHERE discarded = 1")
            })
            for id in recorded.subtracting(delivered) {
                #expect(present.contains(id) || (discarded.contains(id) && mayBeDiscarded.contains(id)), "seed \(seed): \(id) lost")
            }
            #expect(discarded.isDisjoint(with: delivered))
        }
        #expect(try store.integrityCheck() == "ok")
    }

    /// The budget as a power cut leaves the store: the database, what the staged flushes add
    /// once the next process applies them, and the headroom for other writers.
    @Test func theBudgetCountsWhatIsStagedAndLeavesHeadroom() {
        let budget = StoreBudget(bytes: 48 * 4096)
        #expect(StoreBudget.reserve(staged: 0) == 0)
        #expect(StoreBudget.reserve(staged: 10_000) == 24_096)
        #expect(budget.target(staged: 0) == 46 * 4096)
        #expect(budget.holds(size: 46 * 4096, staged: 0))
        #expect(!budget.holds(size: 47 * 4096, staged: 0), "the headroom is kept")
        #expect(!budget.holds(size: 40 * 4096, staged: 12_000), "staged flushes count")
    }

    /// Making room removes delivered measurements, the earliest delivered first, until the
    /// target is met, never an unsent one (with `drop_unsent: never`), and writes nothing when
    /// nothing may go.
    @Test func makingRoomRemovesDeliveredOnlyAndOnlyWhatTheTargetNeeds() throws {
        let store = try Store(directory: directory.path)
        let now = 100 * Self.day
        let unsent = try record(store, end: now - 9 * Self.day)
        let first = try record(store, end: now - 3 * Self.day)
        let second = try record(store, end: now - 2 * Self.day)
        try store.finishUpload(of: first, status: .uploaded)
        try store.finishUpload(of: second, status: .uploaded)
        let policy = RetentionPolicy(keepUploadedDays: nil, maxStoreSize: ByteSize(bytes: 1 << 30)!)
        let report = try store.makeRoom(policy, target: try store.bytesInUse() - 1, now: now, directory: directory.path)
        #expect(report.removed.map(\.measurement) == [first], "one delivered ride frees a byte")
        #expect(try store.fileSize() == store.databaseSize(), "the space went back")
        let all = try store.makeRoom(policy, target: 1, now: now, directory: directory.path)
        #expect(all.removed.map(\.measurement) == [second])
        #expect(try ids(store) == [unsent])
        #expect(try !store.hasRoomToMake(policy))
        let size = try store.databaseSize()
        #expect(try store.makeRoom(policy, target: 1, now: now, directory: directory.path).removed.isEmpty)
        #expect(try store.databaseSize() == size)
    }

    /// A store at its ceiling, every page used, the tombstones' last page full (the month in
    /// the field, day 17: 123 tombstones, every page of 48 used), can still be pruned: a removal
    /// frees its pages before its tombstone takes one. Before, the tombstone was written first,
    /// failed as the store was full, and the prune with it: the recorder stopped (exit 73) with
    /// delivered rides in the store, boot after boot.
    @Test func aStoreAtItsCeilingCanBePrunedForRoom() throws {
        let ceiling = try Store(directory: directory.path).databaseSize() + 40 * 4096
        let store = try Store(directory: directory.path, maximumSize: ceiling)
        let now = 100 * Self.day
        var delivered: [Int64] = []
        for index in 0..<3 {
            let id = try record(store, end: now - Int64(10 - index) * 60_000, samples: 300)
            try store.finishUpload(of: id, status: .uploaded)
            delivered.append(id)
        }
        // Tombstones of earlier removals fill the rest, up to the last page (the insert that
        // fails needed a new page of the tombstones' own).
        var filler: Int64 = 1_000_000
        while true {
            do {
                try store.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO measurement_tombstone (measurement_id, removed_at, reason, discarded, start_ts, end_ts)
                            VALUES (?, 0, 'earlier', 0, 0, 0)
                            """, arguments: [filler])
                }
                filler += 1
            } catch {
                #expect(error == .diskFull(path: store.path), "\(error)")
                break
            }
        }
        #expect(try store.bytesInUse() == store.databaseSize(), "no page is free")
        let before = try store.prunedDeliveredCount()
        let inUse = try store.bytesInUse()
        let report = try store.makeRoom(RetentionPolicy(keepUploadedDays: nil), target: inUse - 1, now: now, directory: directory.path)
        #expect(report.removed.first?.measurement == delivered[0], "the earliest delivered first")
        #expect(report.bytesInUse < inUse, "room was made")
        #expect(try store.prunedDeliveredCount() == before + report.removed.count, "each with its tombstone")
        #expect(try store.integrityCheck() == "ok")
    }
}
