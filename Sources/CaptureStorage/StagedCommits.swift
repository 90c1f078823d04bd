public import CaptureCore

/// Live capture's way into the store: every flush is durable when ``commit(_:to:now:)``
/// returns, as before, but a flush of samples alone goes to the ``FlushLog`` (one record, one
/// `fdatasync`) and reaches the database later, with others, in one transaction: when a flush
/// with events comes (a lifecycle command: they go to the database at once, after what is
/// staged), or on ``commitIfDue(now:)`` once ``maximumWeight`` bytes of samples or
/// ``maximumLogSize`` bytes of log are staged or the oldest staged flush is ``maximumAge`` old,
/// or on ``commitStaged()``.
///
/// Why: SD cards wear by the bytes written, and a commit per second to SQLite writes 12 to 14
/// times the data (BENCHMARKS.md, "Writes per hour"). A crash loses no more than before: what
/// a recorder that died staged is applied by the next process to open the store
/// (``Store/applyFlushLog(wait:dropping:)``). What readers of the database see of a
/// live measurement lags by up to the staging limits; `capture status` asks the recorder.
///
/// Not thread-safe: the recorder calls it under its lock. Holds the log's lock for its life.
public final class StagedCommits {
    public let store: Store
    private let log: FlushLog
    private var staged: [FlushLog.Record] = []
    /// The samples staged: durable, not yet in the database. Counted when asked (`capture
    /// status`), from at most a few hundred records.
    public var stagedCounts: SampleCounts {
        var counts = SampleCounts()
        for record in staged {
            for batch in record.flush.batches { counts[batch.sensor] += batch.count }
            counts.locations += record.flush.flush.fixes.count
            counts.pressure += record.flush.flush.pressures.count
        }
        return counts
    }
    private var weight = 0
    private var oldest: Int64?
    private var next: UInt64

    /// Bytes of samples (encoded) staged before they go to the database: five minutes of a
    /// 100 Hz ride, seconds of kHz sensors. Each transaction also rewrites the pages it appends
    /// to and those above them (about 100 KB here), so fewer, larger ones write less.
    public static let maximumWeight = 512 * 1024
    /// Bytes of log (records start at 4 KiB boundaries) staged before they go to the database:
    /// 512 flushes.
    public static let maximumLogSize = 2 << 20
    /// The longest a flush stays staged, ms.
    public static let maximumAge: Int64 = 300_000

    /// Takes the flush log of `directory` (waiting for a process applying it) and applies what
    /// an earlier recorder left there; on a full store what does not fit is given up
    /// (``Store/applyFlushLog(wait:dropping:)``).
    public init(store: Store, directory: String) throws(StoreError) {
        self.store = store
        try store.applyFlushLog(wait: true, dropping: true)
        guard let log = try FlushLog(directory: directory, wait: true) else {
            throw .cannotOpen(path: directory + "/" + FlushLog.fileName, reason: "locked")
        }
        // Anything left is spent now: this recorder writes from offset 0.
        try log.clear()
        log.reserve(Self.maximumLogSize + 64 * 1024)
        self.log = log
        next = try store.appliedLogSequence() + 1
    }

    /// Whether flushes wait in the log for the database.
    public var hasStaged: Bool { !staged.isEmpty }

    /// Commits `flush` of `measurement` durably: a flush of samples alone to the log, a flush
    /// with events to the database at once, after everything staged. On a failure nothing of
    /// `flush` is kept and the staged flushes stay staged. Follow it with ``commitIfDue(now:)``.
    public func commit(_ flush: Flush, to measurement: Int64, now: Int64) throws(StoreError) {
        guard !flush.isEmpty else { return }
        let encoded = try EncodedFlush(flush)
        guard flush.events.isEmpty else {
            try store.commit(records: staged, then: encoded, to: measurement)
            clear()
            return
        }
        try log.append(encoded, sequence: next, measurement: measurement)
        staged.append(FlushLog.Record(sequence: next, measurement: measurement, flush: encoded))
        next += 1
        weight += encoded.weight
        oldest = oldest ?? now
    }

    /// How long a due commit waits for another process's transaction before it gives way,
    /// seconds. Readers and a commit exclude each other (``Store``); what is staged is durable
    /// in the log, so the commit is tried again at the next flush rather than keeping the
    /// recorder from flushing while a reader finishes.
    public static let patience: Double = 0.25

    /// How many due commits gave way to another process since the recorder started.
    public private(set) var deferred = 0

    /// Commits everything staged to the database if a staging limit is reached. On a failure
    /// everything stays staged; a store held by another process for more than ``patience``
    /// is not a failure: the commit is deferred (``deferred``) to the next call.
    public func commitIfDue(now: Int64) throws(StoreError) {
        guard isDue(now: now) else { return }
        do {
            try store.commit(records: staged, patience: Self.patience)
        } catch .busy {
            deferred += 1
            return
        }
        clear()
    }

    /// Whether a staging limit is reached at `now`: ``commitIfDue(now:)`` would commit.
    public func isDue(now: Int64) -> Bool {
        guard let oldest else { return false }
        return weight >= Self.maximumWeight || log.offset >= Self.maximumLogSize || now - oldest >= Self.maximumAge
    }

    /// Commits everything staged to the database now.
    public func commitStaged() throws(StoreError) {
        guard !staged.isEmpty else { return }
        try store.commit(records: staged)
        clear()
    }

    /// For a full store, where ``commitStaged()`` failed: commits staged flushes one
    /// transaction each as far as they fit. The rest stay in the log, for `capture stop` or a
    /// resumed recorder to decide (``Store/applyFlushLog(wait:dropping:)``).
    public func commitWhatFits() {
        let committed = store.commitWhatFits(staged)
        staged.removeFirst(committed)
    }

    /// Ends the log once nothing is staged: the recorder is done.
    public func close() {
        guard staged.isEmpty else { return }
        try? log.clear()
    }

    private func clear() {
        staged = []
        weight = 0
        oldest = nil
        log.rewind()
    }
}
