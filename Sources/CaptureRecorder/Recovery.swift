package import CaptureCore
import Foundation
package import CaptureStorage

/// Finishing a measurement whose recorder died.
package enum Recovery {
    /// Stops the interrupted open measurement where its committed data ends. Returns its id and
    /// how many flushes staged in the flush log did not fit into a full store and were given up.
    package static func stopInterrupted(store: Store) throws -> (id: Int64, givenUp: Int) {
        // What the recorder staged first; on a full store what does not fit is given up, since
        // nothing may follow the stop.
        let givenUp = try store.applyFlushLog(wait: true, dropping: true)
        guard let open = try store.openMeasurement() else { throw LifecycleError.notOpen(state: .idle) }
        // A power cut may have torn the last line of the recorder's log; it goes out whole.
        AttachmentFile.cutTornLastLine(Store.journalPath(of: open.id, in: store.directory))
        var engine = Recording(
            lifecycle: Lifecycle(restoring: open.lifecycleState, modality: try store.currentModality(of: open.id)))
        let end = try store.lastTimestamp(of: open.id) ?? open.startTime
        try store.commit(try engine.apply(.stop, at: end), to: open.id)
        return (open.id, givenUp)
    }

    /// Finishes the interrupted open measurement as a power cut ends a ride: stopped where its
    /// committed data ends (``stopInterrupted(store:)``), its recorder log saying so, and
    /// counted (``RideCount/endedByPower``). `now` is when the new recorder found it. Judged as
    /// any ride's end is (``RideRules/discards(_:continued:)``): with `ride.detect: auto`, a
    /// ride that moved less than `ride.min_distance` in total is discarded (`discarded`).
    package static func endByInterruption(
        store: Store, directory: String, ride: RideSettings, at now: Int64
    ) throws -> (id: Int64, givenUp: Int, discarded: Bool) {
        // What the recorder staged first, as ``stopInterrupted(store:)`` does: its fixes count.
        let givenUp = try store.applyFlushLog(wait: true, dropping: true)
        guard let open = try store.openMeasurement() else { throw LifecycleError.notOpen(state: .idle) }
        let travel = try travel(of: open.id, store: store)
        if RideRules(settings: ride).discards(travel, continued: continuesARide(open.id, directory: directory)) {
            // Deleted and counted at once: a cut before leaves it open, found at the next boot.
            try store.discardRide(open.id, counting: [.endedByPower, .discardedAsStill])
            _ = try? store.removeLeftovers(in: directory)
            return (open.id, givenUp, true)
        }
        let (id, more) = try stopInterrupted(store: store)
        let end = try store.lastTimestamp(of: id) ?? now
        RecorderJournal(directory: directory, measurement: id, store: store)?
            .note(RecorderStateMachine.JournalEntry.interrupted(committedUntil: end, foundAt: now).line, at: end)
        try store.countRide(.endedByPower)
        return (id, givenUp + more, false)
    }

    /// How far the committed fixes of measurement `id` came, in time order.
    static func travel(of id: Int64, store: Store) throws(StoreError) -> RideTravel {
        var travel = RideTravel()
        try store.forEachFix(of: id) { travel.pass($0) }
        return travel
    }

    /// Whether measurement `id` continues a ride that reached its size or duration limit: its
    /// journal says it began by size (``RideEvent/begun(by:preRollFrom:)``). The journal's
    /// lines are made durable one by one, so a cut loses at most one being written.
    static func continuesARide(_ id: Int64, directory: String) -> Bool {
        guard let text = Store.journalText(of: id, in: directory) else { return false }
        let begun = RideEvent.begun(by: .size, preRollFrom: 0).line
        return JournalLine.lines(of: text).contains { $0.event == begun.event && $0.by == begun.by }
    }

    /// The interrupted open measurement and its sources as they stand once `records` (flush-log
    /// records the database has not taken) are applied (``RecorderStateMachine/Interrupted/after(_:stored:)``):
    /// only reads, so it works while another process holds the database.
    package static func interrupted(
        store: Store, after records: [FlushLog.Record]
    ) throws(StoreError) -> (RecorderStateMachine.Interrupted, sources: [String])? {
        var stored: (RecorderStateMachine.Interrupted, sources: String)?
        if let open = try store.openMeasurement() {
            let lifecycle = Lifecycle(restoring: open.lifecycleState, modality: try store.currentModality(of: open.id))
            stored = (
                .init(
                    id: open.id, startTime: open.startTime, lifecycle: lifecycle,
                    committedEnd: try store.lastTimestamp(of: open.id) ?? open.startTime,
                    correction: try store.clockCorrection(of: open.id), travel: try travel(of: open.id, store: store),
                    continued: continuesARide(open.id, directory: store.directory)),
                open.sources
            )
        }
        guard let (found, sources) = RecorderStateMachine.Interrupted.after(records, stored: stored) else { return nil }
        return (found, sources.split(separator: "\n").map(String.init))
    }

    /// ``interrupted(store:after:)`` with the records the flush log of `directory` holds (no
    /// recorder may be running: its lock is waited for).
    package static func interrupted(
        store: Store, directory: String
    ) throws(StoreError) -> (RecorderStateMachine.Interrupted, sources: [String])? {
        let records = try FlushLog(directory: directory, wait: true)?.records(after: try store.appliedLogSequence()) ?? []
        return try interrupted(store: store, after: records)
    }
}
