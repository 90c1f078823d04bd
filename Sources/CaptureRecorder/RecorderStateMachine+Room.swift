import CaptureStorage

// A store full of what may not go (rides the collector has not taken, `retention.drop_unsent:
// never`), with `ride.detect: auto`: the recorder does not end (capture-record.service would
// start it again into the same store every 5 s, and each start's recovery would apply what the
// last one staged with no ceiling). It waits armed, beginning no ride and reserving no id,
// looks for room now and then, and arms as before once delivery, a prune or a deletion made some.
extension RecorderStateMachine {
    /// Whether a full store is waited out armed rather than an end of the recording
    /// (`ride.detect: auto`).
    package var waitsForRoom: Bool { ride.settings.detect == .auto && !isFinished }

    /// Since when the recorder waits armed for room (``outOfRoom(at:)``); `nil` while it has room.
    package var waitingForRoomSince: Int64? { room.since }

    /// The store is full and nothing may go (``StoreFailureDecision/waitForRoom``), at `now`
    /// (host clock): a ride under way ends here, by ``RideEvent/End/fullStore`` (its end waits
    /// in the flush log with what did not fit, as for a busy store, and goes in once there is
    /// room); the recorder waits armed until ``roomChecked(_:at:)`` finds room. Called again
    /// while waiting, it changes nothing. Nothing staged is given up.
    package mutating func outOfRoom(at now: Int64) -> [Action] {
        guard waitsForRoom else { return [] }
        // What did not fit is tried again as waiting events are (``retryDue(at:)``).
        waits.events = true
        room.begin(at: now)
        guard case .recording = state else { return [] }
        return endRide(at: now + timeBase.offset, by: .fullStore)
    }

    /// A look for room, while waiting armed for it and at most every ``RoomWait/checkInterval``.
    mutating func roomCheckDue(at now: Int64) -> [Action] {
        guard state == .armed, room.checkDue(at: now) else { return [] }
        return [.checkRoom]
    }

    /// What a look for room found at `now`: with `room`, once what waited in the flush log is in
    /// the database, the recorder arms as before (motion begins a ride, with its pre-roll, kept
    /// while waiting; ids are reserved).
    package mutating func roomChecked(_ room: Bool, at now: Int64) -> [Action] {
        guard room, !waits.events, self.room.since != nil, state == .armed else { return [] }
        self.room.end()
        ride.since = now
        return reservationDue(at: now)
    }
}
