import CaptureCore
public import CaptureStorage

/// Finishing a measurement whose recorder died.
public enum Recovery {
    /// Stops the interrupted open measurement where its committed data ends. Returns its id.
    public static func stopInterrupted(store: Store) throws -> Int64 {
        guard let open = try store.openMeasurement() else { throw LifecycleError.notOpen(state: .idle) }
        var engine = Recording(
            lifecycle: Lifecycle(restoring: open.lifecycleState, modality: try store.currentModality(of: open.id)))
        let end = try store.lastTimestamp(of: open.id) ?? open.startTime
        try store.commit(try engine.apply(.stop, at: end), to: open.id)
        return open.id
    }
}
