import GRDB

/// What the recorder counts about rides (``Store/countRide(_:)``): how they began and ended,
/// and those discarded for standing still. `capture metrics` and `capture status` show them.
public enum RideCount: String, Sendable, CaseIterable, Codable {
    /// Begun when motion began (`ride.detect: auto`).
    case begunByMotion = "begun_by_motion"
    /// Begun as the continuation of a ride that reached its size or duration limit.
    case begunBySize = "begun_by_size"
    /// Begun by the rider's long press of the button while armed.
    case begunByButton = "begun_by_button"
    /// Begun over the control socket while armed (the page's "Begin ride").
    case begunByCommand = "begun_by_command"
    /// Ended after standing still for `ride.end_after_still`.
    case endedByMotion = "ended_by_motion"
    /// Ended by a power cut or crash: finished at its last committed sample when the next
    /// recorder found it older than `ride.resume_within`.
    case endedByPower = "ended_by_power"
    /// Ended by `capture stop` or the recorder's own end (SIGTERM).
    case endedByCommand = "ended_by_command"
    /// Ended by the rider's long press of the button.
    case endedByButton = "ended_by_button"
    /// Ended to be continued as a new measurement before its size or duration limit.
    case endedBySize = "ended_by_size"
    /// Ended because the store was full and nothing in it may go (every ride in it waits for
    /// the collector, `retention.drop_unsent: never`): the recorder waits armed for room.
    case endedByFullStore = "ended_by_full_store"
    /// Ended having moved less than `ride.min_distance`: deleted, never uploaded.
    case discardedAsStill = "discarded_as_still"
    /// A measurement during which the board reported under-voltage (a Raspberry Pi's power
    /// supply browning out), counted once each.
    case sawUnderVoltage = "saw_under_voltage"
}

extension Store {
    /// Counts one more `kind`.
    public func countRide(_ kind: RideCount) throws(StoreError) {
        try countRides([kind])
    }

    /// Counts one more of each of `kinds`, in one transaction (all or none).
    public func countRides(_ kinds: [RideCount]) throws(StoreError) {
        try write { db in try Self.count(kinds, in: db) }
    }

    /// Deletes measurement `id`, a ride that moved less than `ride.min_distance`, and counts
    /// one more of each of `kinds`, in one transaction: a power cut leaves the ride and its
    /// counts as they were or both changed. Its files are the caller's to remove
    /// (``removeLeftovers(in:)``).
    public func discardRide(_ id: Int64, counting kinds: [RideCount]) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM measurement WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw StoreError.measurementNotFound(id) }
            try Self.count(kinds, in: db)
        }
    }

    /// Counts one more of each of `kinds` inside the caller's transaction.
    static func count(_ kinds: [RideCount], in db: Database) throws {
        for kind in kinds {
            try db.execute(
                sql: "INSERT INTO ride_count (kind, count) VALUES (?, 1) ON CONFLICT (kind) DO UPDATE SET count = count + 1",
                arguments: [kind.rawValue])
        }
    }

    /// Every kind with its count (0 for those never counted).
    public func rideCounts() throws(StoreError) -> [RideCount: Int] {
        try read { db in
            var counts = Dictionary(uniqueKeysWithValues: RideCount.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT kind, count FROM ride_count") {
                if let kind = RideCount(rawValue: row["kind"]) { counts[kind] = row["count"] }
            }
            return counts
        }
    }
}
