import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureStorage

/// When staged flushes go into the database: at the weight or the age limit, after a reader that
/// held the commit out, around an export that stalls and on a full store; and the chunked readers
/// that let them.
extension FlushLogTests {
    @Test func stagedFlushesGoToTheDatabaseAtTheWeightLimit() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let staged = try StagedCommits(store: store, directory: directory.path)
        var committed = 0
        var seconds: Int64 = 0
        while try store.counts(of: id).total == 0 {
            try staged.commit(samples(&engine, from: seconds * 1_000, count: 800), to: id, now: seconds * 1_000)
            try staged.commitIfDue(now: seconds * 1_000)
            committed += 800
            seconds += 1
            #expect(seconds < 1_000)
        }
        #expect(try store.counts(of: id).accelerometer == committed)
        #expect(!staged.hasStaged)
        // Well before the age limit: the weight decided.
        #expect(seconds * 1_000 < StagedCommits.maximumAge)
    }

    @Test func stagedFlushesGoToTheDatabaseAtTheAgeLimit() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let staged = try StagedCommits(store: store, directory: directory.path)
        try staged.commit(samples(&engine, from: 1_000, count: 1), to: id, now: 1_000)
        try staged.commit(samples(&engine, from: 2_000, count: 1), to: id, now: 1_000 + StagedCommits.maximumAge - 1)
        try staged.commitIfDue(now: 1_000 + StagedCommits.maximumAge - 1)
        #expect(try store.counts(of: id).total == 0)
        try staged.commit(samples(&engine, from: 3_000, count: 1), to: id, now: 1_000 + StagedCommits.maximumAge)
        try staged.commitIfDue(now: 1_000 + StagedCommits.maximumAge)
        #expect(try store.counts(of: id).accelerometer == 3)
    }

    /// With a rollback journal a reader's transaction keeps a commit out. A due commit then
    /// waits a moment, gives way and stays staged (durable in the log) instead of failing the
    /// recording, and goes in at the next try once the reader is done.
    @Test func aDueCommitGivesWayToAReaderAndGoesInOnceItIsDone() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        let staged = try StagedCommits(store: store, directory: directory.path)
        try staged.commit(samples(&engine, from: 1_000), to: id, now: 1_000)
        let due = 1_000 + StagedCommits.maximumAge
        let reader = try DatabaseQueue(path: directory.path + "/capture.sqlite")
        try reader.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sensor_batch") == 0)
            let started = Date()
            try staged.commitIfDue(now: due)
            #expect(Date().timeIntervalSince(started) < 5)
            #expect(staged.deferred == 1)
            #expect(staged.hasStaged)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sensor_batch") == 0)
        }
        try staged.commitIfDue(now: due + 1_000)
        #expect(staged.deferred == 1)
        #expect(!staged.hasStaged)
        #expect(try store.counts(of: id).accelerometer == 100)
        // A commit that must not wait (a lifecycle event) fails after its patience, as one line.
        try staged.commit(samples(&engine, from: 2_000), to: id, now: due + 2_000)
        try reader.read { db in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement")
            #expect(throws: StoreError.busy(path: store.path)) {
                try store.commit(records: [], then: EncodedFlush(try engine.apply(.pause, at: 3_000)), to: id, patience: 0.1)
            }
        }
    }

    /// Exports read in chunks, each in a transaction of its own: a consumer that stalls in the
    /// middle (a pager) keeps nothing out. Batches committed meanwhile come with the rest.
    @Test func aStalledExportKeepsNoCommitOut() throws {
        let store = try Store(directory: directory.path)
        var (id, engine) = try started(store)
        for second in 0..<3 { try store.commit(samples(&engine, from: 1_000 + Int64(second) * 1_000), to: id) }
        let staged = try StagedCommits(store: store, directory: directory.path)
        var seen = 0
        var fixes = 0
        try store.forEachFix(of: id) { _ in
            if fixes == 0 {
                try staged.commit(samples(&engine, from: 4_000), to: id, now: 4_000)
                try staged.commitIfDue(now: 4_000 + StagedCommits.maximumAge)
            }
            fixes += 1
        }
        #expect(staged.deferred == 0 && !staged.hasStaged)
        try store.forEachBatch(of: id, sensor: .gyroscope) { _ in
            if seen == 0 {
                try staged.commit(samples(&engine, from: 5_000), to: id, now: 5_000)
                try staged.commitIfDue(now: 5_000 + StagedCommits.maximumAge)
            }
            seen += 1
        }
        #expect(staged.deferred == 0 && !staged.hasStaged)
        #expect(fixes == 4)
        #expect(seen == 5)
    }

    /// The chunks of the readers join up: every fix once, in (time, id) order, also where many
    /// share a time across a chunk's end, and every batch once in id order.
    @Test func chunkedReadersReadEveryRowOnceInOrder() throws {
        let store = try Store(directory: directory.path)
        let (id, _) = try started(store)
        let count = max(Store.chunkRows.fixes, Store.chunkRows.batches) * 2 + 7
        // Written directly, in one transaction: three fixes a time, every twelfth one earlier
        // than those stored before it; a batch row per fix (the readers do not decode them).
        try store.write { db in
            for index in 0..<count {
                let time = 2_000 + Int64(index / 3) * 1_000 - Int64(index % 12 == 11 ? 3_000 : 0)
                try db.execute(
                    sql: "INSERT INTO location (measurement_id, id, track, ts, lat, lon) VALUES (?, ?, 1, ?, ?, 13)",
                    arguments: [id, index + 1, time, 51 + Double(index) * 1e-6])
                try db.execute(
                    sql: """
                        INSERT INTO sensor_batch (measurement_id, track, sensor, first_ts, last_ts, count, data)
                        VALUES (?, 1, 1, ?, ?, 1, x'00')
                        """, arguments: [id, 2_000 + index, 2_000 + index])
            }
        }
        let expected = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT ts, lat FROM location WHERE measurement_id = ? ORDER BY ts, id", arguments: [id])
                .map { (row: Row) -> [Double] in [Double(row["ts"] as Int64), row["lat"]] }
        }
        var read: [[Double]] = []
        try store.forEachFix(of: id) { read.append([Double($0.timestamp), $0.latitude]) }
        #expect(read.count == count)
        #expect(read == expected)
        var batches = 0
        var samples = 0
        var last = Int64.min
        try store.forEachBatch(of: id, sensor: .accelerometer) { batch in
            #expect(batch.firstTime > last)
            last = batch.lastTime
            batches += 1
            samples += batch.count
        }
        #expect(samples == count)
        #expect(batches == count)
    }

    /// A full store: the recorder commits what fits; a reader leaves the rest in the log; the
    /// stop gives it up (nothing may follow the stop), once, and says how much.
    @Test func onAFullStoreWhatFitsIsCommittedAndTheRestGivenUpOnlyWhenStopping() throws {
        let id: Int64
        var limit: Int64 = 0
        do {
            let unlimited = try Store(directory: directory.path)
            var engine: Recording
            (id, engine) = try started(unlimited)
            limit = try unlimited.databaseSize() + 8_192
            let store = try Store(directory: directory.path, maximumSize: limit)
            let staged = try StagedCommits(store: store, directory: directory.path)
            for second in 0..<40 {
                try staged.commit(samples(&engine, from: Int64(second) * 1_000, count: 100), to: id, now: 0)
            }
            #expect(throws: StoreError.self) { try staged.commitStaged() }
            staged.commitWhatFits()
            #expect(try store.counts(of: id).accelerometer > 0)
            #expect(try store.counts(of: id).accelerometer < 4_000)
        }
        let reader = try Store(directory: directory.path, maximumSize: limit)
        let kept = try reader.counts(of: id).accelerometer
        #expect(FlushLog.mayHavePending(directory: directory.path, after: try reader.appliedLogSequence()))
        let givenUp = try reader.applyFlushLog(wait: true, dropping: true)
        #expect(givenUp > 0 && givenUp == 40 - kept / 100)
        #expect(try reader.counts(of: id).accelerometer == kept)
        #expect(try reader.appliedLogSequence() == 40)
        #expect(try reader.applyFlushLog(wait: true, dropping: true) == 0)
        #expect(try reader.integrityCheck() == "ok")
    }
}
