// A database another process holds: what waits in the flush log is tried again, with gaps for
// the readers; measurement ids for rides to come (`ride.detect: auto`) are reserved in the store
// while it is free, so that a ride that begins while it is busy begins at once in the flush log
// under its id, and its record, replayed after a power cut, makes the same measurement (never
// one merged with the ride before it).
extension RecorderStateMachine {
    /// The least time between two tries of what waits for a busy store, ms. A try that waits
    /// for its lock shuts new readers out while it waits (``StagedCommits/patience``), so tries
    /// at every flush of a short flush interval would keep a reader such as `capture status`
    /// out for good.
    static let retryInterval: Int64 = 1_000

    /// The time between two tries of what waits for a busy store, and of a reservation, ms.
    var retryEvery: Int64 { max(flushInterval, Self.retryInterval) }

    /// Lifecycle events durable in the flush log that the database has not taken yet (another
    /// process held it, or it was full): a flush tries again (``retryDue(at:)``) until they
    /// go in, and a recorder that stops with them waiting commits them before it exits.
    package var eventsWaiting: Bool { waits.events }

    /// A try of what waits in the flush log, if events wait and the last try is long enough ago.
    mutating func retryDue(at now: Int64) -> [Action] {
        guard waits.events, waits.tries.take(at: now, every: retryEvery) else { return [] }
        return [commitStagedNow]
    }

    /// Ids kept reserved ahead (``IDReservations/ahead``).
    static let idsAhead = IDReservations.ahead

    /// The reservation, once ids are wanted and none is under way: while armed or recording with
    /// `ride.detect: auto`, at a flush until it goes through, at most once a second (a try, like
    /// a commit, shuts new readers out while it waits for its lock).
    mutating func reservationDue(at now: Int64) -> [Action] {
        // Not while events wait: the store is busy, and a try would only keep readers out longer.
        // Nor while the store has no room (``outOfRoom(at:)``): a reservation writes.
        guard ride.settings.detect == .auto, !waits.events, room.since == nil,
            reservations.due(at: now, every: retryEvery)
        else { return [] }
        return [.reserveMeasurementIDs]
    }

    /// The store reserved `ids` (empty: the reservation failed, another process held the store;
    /// the next flush tries again). Those a ride took already are left out.
    package mutating func reserved(_ ids: [Int64]) {
        reservations.answered(ids)
    }
}
