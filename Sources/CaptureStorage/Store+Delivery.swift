import Foundation
import GRDB

/// What `capture sync` remembers between runs: consecutive failed passes and when the next
/// may try again (``Store/deliveryState()``).
public struct DeliveryState: Sendable, Equatable, Codable {
    /// Passes in a row that could not deliver (collector unreachable, or a measurement failed).
    public var failures: Int
    /// Unix ms before which a pass (without `--now`) does not try; `nil`: any time.
    public var nextAttemptAt: Int64?
    /// Unix ms of the last pass that tried to deliver.
    public var lastAttemptAt: Int64?
    /// Why the last pass failed.
    public var lastError: String?

    public init(failures: Int = 0, nextAttemptAt: Int64? = nil, lastAttemptAt: Int64? = nil, lastError: String? = nil) {
        self.failures = failures
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastError = lastError
    }
}

/// Delivery figures over the whole store, for `capture status` and `capture metrics`.
public struct DeliveryTotals: Sendable, Equatable, Codable {
    /// Finished measurements the collector confirmed (also those removed locally since).
    public var delivered = 0
    /// Finished measurements not delivered yet: pending, interrupted or failed.
    public var waiting = 0
    /// Of those waiting, the ones whose last upload failed.
    public var failed = 0
    /// Measurements the collector does not want (412, too few fixes); kept, not retried.
    public var skipped = 0
    /// Measurements whose local data was dropped before delivery (`retention.drop_unsent:
    /// oldest`); each is also a tombstone in the store.
    public var discarded = 0
    /// Upload runs that tried a measurement, and retries within them, over all measurements.
    public var attempts = 0
    public var retries = 0
    /// Unix ms when the oldest waiting measurement was stopped.
    public var oldestWaitingSince: Int64?

    public init() {}
}

extension Store {
    /// The delivery state (all zero before the first pass).
    public func deliveryState() throws(StoreError) -> DeliveryState {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT failures, next_attempt_at, last_attempt_at, last_error FROM delivery").map {
                DeliveryState(
                    failures: $0["failures"], nextAttemptAt: $0["next_attempt_at"], lastAttemptAt: $0["last_attempt_at"],
                    lastError: $0["last_error"])
            } ?? DeliveryState()
        }
    }

    /// Records a pass's outcome: a success clears the failures and the backoff.
    public func recordDeliveryPass(_ state: DeliveryState) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO delivery (id, failures, next_attempt_at, last_attempt_at, last_error) VALUES (1, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET failures = excluded.failures, next_attempt_at = excluded.next_attempt_at,
                        last_attempt_at = excluded.last_attempt_at, last_error = excluded.last_error
                    """, arguments: [state.failures, state.nextAttemptAt, state.lastAttemptAt, state.lastError])
        }
    }

    /// Counts one more upload run trying measurement `id` (its upload row exists by then).
    public func noteUploadAttempt(of id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE upload SET attempts = attempts + 1 WHERE measurement_id = ?", arguments: [id])
        }
    }

    /// Counts one retry (a failed request tried again) within an upload of measurement `id`.
    public func noteUploadRetry(of id: Int64) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE upload SET retries = retries + 1 WHERE measurement_id = ?", arguments: [id])
        }
    }

    /// Attempts and retries of measurement `id`'s uploads (0 and 0 if never tried).
    public func uploadAccounting(of id: Int64) throws(StoreError) -> (attempts: Int, retries: Int) {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT attempts, retries FROM upload WHERE measurement_id = ?", arguments: [id])
                .map { (attempts: $0["attempts"], retries: $0["retries"]) } ?? (0, 0)
        }
    }

    /// The delivery figures of every finished measurement.
    /// When the collector last confirmed a measurement the store still holds (Unix ms); nil
    /// when none is.
    public func lastDeliveryTime() throws(StoreError) -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(uploaded_at) FROM upload WHERE status = 'uploaded'") }
    }

    public func deliveryTotals() throws(StoreError) -> DeliveryTotals {
        try read { db in
            var totals = DeliveryTotals()
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT COALESCE(u.status, 'pending') AS status, COUNT(*) AS count, MIN(m.end_ts) AS since,
                        SUM(COALESCE(u.attempts, 0)) AS attempts, SUM(COALESCE(u.retries, 0)) AS retries
                    FROM measurement m LEFT JOIN upload u ON u.measurement_id = m.id
                    WHERE m.status = 'finished' GROUP BY 1
                    """)
            for row in rows {
                let status: String = row["status"]
                let count: Int = row["count"]
                totals.attempts += row["attempts"] as Int
                totals.retries += row["retries"] as Int
                switch status {
                case "uploaded": totals.delivered += count
                case "skipped": totals.skipped += count
                default:
                    totals.waiting += count
                    if status == "failed" { totals.failed += count }
                    let since: Int64? = row["since"]
                    if let since { totals.oldestWaitingSince = min(totals.oldestWaitingSince ?? since, since) }
                }
            }
            totals.delivered += try Int.fetchOne(db, sql: Self.countTombstones, arguments: [false]) ?? 0
            totals.discarded = try Int.fetchOne(db, sql: Self.countTombstones, arguments: [true]) ?? 0
            return totals
        }
    }
}
