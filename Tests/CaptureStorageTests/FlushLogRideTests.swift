import CaptureCore
import Foundation
import GRDB
import Testing

@testable import CaptureStorage

/// `ride.detect: auto` with a busy store (issue 28, item 5): a ride's end, the next ride's begin
/// under a reserved id and a move onto GNSS time wait in the flush log as a command's events do,
/// and a power cut after any step leaves exactly the steps up to it.
extension FlushLogTests {
    static let journal = FlushLog.Step.begin(sources: "iio:iio:device0", journal: "recorder.jsonl")

    @Test func aRidesEndAndTheNextRidesBeginWaitingForABusyDatabaseAreReplayedInOrderAfterACut() throws {
        let store = try Store(directory: directory.path)
        let staged = try StagedCommits(store: store, directory: directory.path)
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [1, 2])
        // Ride 1 begins under its reserved id, in the log; the store is free, so it goes in.
        var first = Recording()
        try staged.commit(
            try first.apply(.start(.bicycle), at: 1_000), steps: [Self.journal, .countRide(.begunByMotion)], to: 1, now: 1_000)
        try staged.commit(samples(&first, from: 1_000), to: 1, now: 1_500)
        try staged.commitStaged(patience: StagedCommits.lifecyclePatience)
        #expect(try store.measurement(1).status == .capturing)
        #expect(try store.attachments(of: 1).map(\.name) == ["recorder.jsonl"])

        let reader = try DatabaseQueue(path: directory.path + "/capture.sqlite")
        var cuts: [String] = []
        func cut() throws { cuts.append(try copyAtCut(cuts.count)) }
        defer { for copy in cuts { try? FileManager.default.removeItem(atPath: copy) } }
        let busy = StoreError.busy(path: store.path)
        try reader.read { db in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement")
            // `capture stop` ends ride 1 while the reader holds the store.
            try staged.commit(samples(&first, from: 2_000), to: 1, now: 2_000)
            try staged.commit(try first.apply(.stop, at: 3_000), steps: [.countRide(.endedByCommand)], to: 1, now: 3_000)
            #expect(throws: busy) { try staged.commitStaged(patience: 0.1) }
            try cut()
            // Motion: ride 2 begins under the next reserved id.
            var second = Recording()
            try staged.commit(
                try second.apply(.start(.bicycle), at: 4_000), steps: [Self.journal, .countRide(.begunByMotion)], to: 2,
                now: 4_000)
            try staged.commit(samples(&second, from: 4_000, count: 50), to: 2, now: 4_500)
            #expect(throws: busy) { try staged.commitStaged(patience: 0.1) }
            try cut()
            // The receiver finds the host clock 500 ms behind: ride 2 goes onto GNSS time; what
            // comes after is on it already.
            try staged.commit(
                Flush(track: 0, state: .idle, modality: nil), steps: [.moveToGNSSTime(correction: 500, motion: true)], to: 2,
                now: 5_000)
            try staged.commit(samples(&second, from: 5_600, count: 50), to: 2, now: 5_600)
            try cut()
            // Standing still ends ride 2.
            try staged.commit(try second.apply(.stop, at: 7_000), steps: [.countRide(.endedByMotion)], to: 2, now: 7_000)
            #expect(throws: busy) { try staged.commitStaged(patience: 0.1) }
            try cut()
            #expect(staged.eventsStaged == 4)
            // Nothing of it reached the database while the reader held it.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM event") == 2)
        }
        let stopped: [EventType] = [.lifecycleStart, .modalityTypeChange, .lifecycleStop]
        for (index, copy) in cuts.enumerated() {
            let booted = try Store(directory: copy)
            #expect(try booted.integrityCheck() == "ok", "cut \(index)")
            // Ride 1: ended by the stop, all its samples, whatever came after.
            #expect(try booted.events(of: 1).map(\.type) == stopped, "cut \(index)")
            #expect(try booted.measurement(1).endTime == 3_000)
            #expect(try booted.counts(of: 1).accelerometer == 200)
            let counts = try booted.rideCounts()
            #expect(counts[.begunByMotion] == (index == 0 ? 1 : 2) && counts[.endedByCommand] == 1, "cut \(index)")
            #expect(counts[.endedByMotion] == (index == 3 ? 1 : 0), "cut \(index)")
            guard index > 0 else {
                // Ride 2 had not begun: its id is still reserved, for the next recorder (no gap).
                #expect(throws: StoreError.measurementNotFound(2)) { try booted.measurement(2) }
                #expect(try booted.reserveMeasurementIDs(keeping: 2) == [2, 3])
                continue
            }
            // Ride 2: its own measurement, never merged with ride 1; its id taken.
            let second = try booted.measurement(2)
            #expect(second.status == (index == 3 ? .finished : .capturing), "cut \(index)")
            #expect(second.startTime == (index >= 2 ? 4_500 : 4_000), "cut \(index)")
            #expect(try booted.events(of: 2).map(\.type) == (index == 3 ? stopped : Array(stopped.prefix(2))), "cut \(index)")
            #expect(try booted.counts(of: 2).accelerometer == (index == 1 ? 50 : 100), "cut \(index)")
            #expect(try booted.attachments(of: 2).map(\.name) == ["recorder.jsonl"])
            #expect(try booted.clockCorrection(of: 2) == (index >= 2 ? 500 : nil), "cut \(index)")
            if index >= 2 {
                // Moved once: what was taken before the move is on GNSS time, what after stays.
                let firsts = try DatabaseQueue(path: copy + "/capture.sqlite").read { db in
                    try Int64.fetchAll(db, sql: "SELECT first_ts FROM sensor_batch WHERE measurement_id = 2")
                }
                #expect(firsts.min() == 4_500 && firsts.contains(5_600), "\(firsts)")
            }
            if index == 3 { #expect(second.endTime == 7_000) }
            #expect(try booted.reserveMeasurementIDs(keeping: 2) == [3, 4], "cut \(index)")
        }
        // The recorder itself: once the reader is gone, the next commit takes everything.
        try staged.commitStaged(patience: StagedCommits.lifecyclePatience)
        #expect(try store.events(of: 1).map(\.type) == stopped && store.events(of: 2).map(\.type) == stopped)
        #expect(try store.counts(of: 2).accelerometer == 100)

        // A ride that moved too little is deleted by its end's record; its id is never given again.
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [3, 4])
        var third = Recording()
        try staged.commit(try third.apply(.start(.bicycle), at: 8_000), steps: [Self.journal, .countRide(.begunByMotion)], to: 3, now: 8_000)
        try staged.commit(
            try third.apply(.stop, at: 9_000), steps: [.countRide(.endedByMotion), .discard, .countRide(.discardedAsStill)], to: 3,
            now: 9_000)
        try staged.commitStaged(patience: StagedCommits.lifecyclePatience)
        #expect(throws: StoreError.measurementNotFound(3)) { try store.measurement(3) }
        #expect(try store.rideCounts()[.discardedAsStill] == 1)
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [4, 5])
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func recordsWithStepsRoundTripAndAreReadOnlyAsSuch() throws {
        var engine = Recording()
        let steps: [FlushLog.Step] = [
            Self.journal, .countRide(.begunBySize), .discard, .moveToGNSSTime(correction: -1_234, motion: false),
            .recordClockCorrection(99), .begin(sources: "a\nb", journal: nil),
        ]
        let flush = try engine.apply(.start(.car), at: 1_000)
        let bytes = FlushLog.encode(try EncodedFlush(flush), steps: steps, sequence: 7, measurement: 3)
        #expect(Array(bytes.prefix(4)) == FlushLog.stepsMagic)
        let payload = Array(bytes[FlushLog.headerSize...])
        let (decoded, decodedSteps) = try #require(FlushLog.decode(payload, kind: .steps))
        #expect(decoded.flush.events == flush.events && decodedSteps == steps)
        #expect(FlushLog.decode(payload, kind: .events) == nil)
        #expect(FlushLog.decode(Array(payload.dropLast()), kind: .steps) == nil)
        // Steps without events: an empty flush.
        let bare = FlushLog.encode(
            try EncodedFlush(Flush(track: 0, state: .idle, modality: nil)), steps: [.recordClockCorrection(5)], sequence: 8,
            measurement: 3)
        let (empty, only) = try #require(FlushLog.decode(Array(bare[FlushLog.headerSize...]), kind: .steps))
        #expect(empty.isEmpty && only == [.recordClockCorrection(5)])
    }
}

extension FlushLogTests {
    /// The sweep of files whose measurement is gone (`removeLeftovers`, after every prune) leaves
    /// a reserved id's folder alone: its ride may have begun in the log, its journal written.
    @Test func aRideWhoseBeginWaitsInTheLogKeepsItsJournalThroughASweep() throws {
        let store = try Store(directory: directory.path)
        let staged = try StagedCommits(store: store, directory: directory.path)
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [1, 2])
        var ride = Recording()
        try staged.commit(try ride.apply(.start(.bicycle), at: 1_000), steps: [Self.journal], to: 1, now: 1_000)
        let folder = Store.attachmentDirectory(of: 1, in: directory.path)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try store.removeLeftovers(in: directory.path).isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder))
        // Discarded once in the database: then the sweep takes its folder.
        try staged.commit(try ride.apply(.stop, at: 2_000), steps: [.discard], to: 1, now: 2_000)
        try staged.commitStaged(patience: StagedCommits.lifecyclePatience)
        #expect(try store.removeLeftovers(in: directory.path) == ["attachments/1"])
    }
}

extension FlushLogTests {
    /// Ids only grow: a measurement begun by the store's insert (a ride that found no id
    /// reserved) takes the next id after the reservation, which is then given up.
    @Test func aReservationBelowAMeasurementBegunSinceIsGivenUp() throws {
        let store = try Store(directory: directory.path)
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [1, 2])
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [1, 2])
        let (id, _) = try started(store)
        #expect(id == 3)
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [4, 5])
    }
}

extension FlushLogTests {
    /// Issue 46: ids reserved by a recorder that ended without beginning a ride under them were
    /// jumped over by the next measurement (1, 2, 5). They go back when it ends; ids once given
    /// (a deleted measurement's) are never given again.
    @Test func idsReservedAndNeverTakenGoBackWhenTheRecorderEnds() throws {
        let store = try Store(directory: directory.path)
        let (first, begun) = try started(store)
        var engine = begun
        try store.commit(try engine.apply(.stop, at: 2_000), to: first)
        #expect(try store.reserveMeasurementIDs(keeping: 2) == [2, 3])
        try store.releaseReservedMeasurementIDs()
        #expect(try store.reservedMeasurementIDs().isEmpty)
        let (second, secondBegun) = try started(store)
        var again = secondBegun
        #expect(second == 2)
        try store.commit(try again.apply(.stop, at: 2_000), to: second)
        try store.delete(second)
        // Reserved past a deleted id and given back: the deleted id stays used.
        #expect(try store.reserveMeasurementIDs(keeping: 1) == [3])
        try store.releaseReservedMeasurementIDs()
        #expect(try started(store).0 == 3)
    }
}
