import CaptureCore
public import CaptureStorage

/// Finishing a measurement whose recorder died.
public enum Recovery {
    /// Stops the interrupted open measurement where its committed data ends. Returns its id and
    /// how many flushes staged in the flush log did not fit into a full store and were given up.
    public static func stopInterrupted(store: Store) throws -> (id: Int64, givenUp: Int) {
        // What the recorder staged first; on a full store what does not fit is given up, since
        // nothing may follow the stop.
        let givenUp = try store.applyFlushLog(wait: true, dropping: true)
        guard let open = try store.openMeasurement() else { throw LifecycleError.notOpen(state: .idle) }
        // A power cut may have torn the last line of the recorder's log; it goes out whole.
        AttachmentFile.cutTornLastLine(Store.attachmentDirectory(of: open.id, in: store.directory) + "/" + RecorderJournal.name)
        var engine = Recording(
            lifecycle: Lifecycle(restoring: open.lifecycleState, modality: try store.currentModality(of: open.id)))
        let end = try store.lastTimestamp(of: open.id) ?? open.startTime
        try store.commit(try engine.apply(.stop, at: end), to: open.id)
        return (open.id, givenUp)
    }

    /// Finishes the interrupted open measurement as a power cut ends a ride: stopped where its
    /// committed data ends (``stopInterrupted(store:)``), its recorder log saying so, and
    /// counted (``RideCount/endedByPower``). `now` is when the new recorder found it.
    public static func endByInterruption(store: Store, directory: String, at now: Int64) throws -> (id: Int64, givenUp: Int) {
        let (id, givenUp) = try stopInterrupted(store: store)
        let end = try store.lastTimestamp(of: id) ?? now
        RecorderJournal(directory: directory, measurement: id, store: store)?
            .note(RecorderStateMachine.JournalEntry.interrupted(committedUntil: end, foundAt: now).fields, at: end)
        try store.countRide(.endedByPower)
        return (id, givenUp)
    }
}
