public import CaptureCore

/// Live capture's way into the store: every flush is durable when ``commit(_:to:now:)``
/// returns: it is one record of the ``FlushLog`` (one `fdatasync`) and reaches the database
/// later, with others, in one transaction: when the recorder asks (``commitStaged(patience:)``,
/// after a lifecycle command), or on ``commitIfDue(now:)`` once ``maximumWeight`` bytes of
/// samples or ``maximumLogSize`` bytes of log are staged or the oldest staged flush is
/// ``maximumAge`` old.
///
/// Why: SD cards wear by the bytes written, and a commit per second to SQLite writes 12 to 14
/// times the data (BENCHMARKS.md, "Writes per hour"). A crash loses no more than before: what
/// a recorder that died staged is applied by the next process to open the store
/// (``Store/applyFlushLog(wait:dropping:)``), events and samples in the order they were staged.
/// What readers of the database see of a live measurement lags by up to the staging limits;
/// `capture status` asks the recorder.
///
/// A lifecycle command's flush (its events) is staged like any other, so a database that
/// another process holds (a long read) never loses it nor ends the recording: it waits in the
/// log, durable, and goes in with the next commit that gets through.
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
    /// About how many bytes of samples are staged (``EncodedFlush/weight``): what the database
    /// grows by, roughly, once they reach it (``StoreBudget/reserve(staged:)``).
    public var stagedWeight: Int { weight }
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
    /// (``Store/applyFlushLog(wait:dropping:patience:)``). While another process holds the
    /// database (a reader at boot) those records stay staged instead, durable where they are,
    /// and go in first with the next commit (``records``): a recorder starts without the
    /// database.
    public init(store: Store, directory: String) throws(StoreError) {
        self.store = store
        guard let log = try FlushLog(directory: directory, wait: true) else {
            throw .cannotOpen(path: directory + "/" + FlushLog.fileName, reason: "locked")
        }
        self.log = log
        let applied = try store.appliedLogSequence()
        let left = try log.records(after: applied)
        next = (left.last?.sequence ?? applied) + 1
        do {
            _ = try store.apply(left, dropping: true, patience: Self.lifecyclePatience)
        } catch .busy {
            // The log goes on after them (``FlushLog/records(after:)``): nothing is written twice.
            staged = left
            weight = left.reduce(0) { $0 + $1.flush.weight }
            eventsStaged = left.count(where: \.carriesEvents)
            log.reserve(Self.maximumLogSize + 64 * 1024)
            return
        }
        // Anything left is spent now: this recorder writes from offset 0.
        try log.clear()
        log.reserve(Self.maximumLogSize + 64 * 1024)
    }

    /// The records staged, in order: what the database will take with the next commit. Right
    /// after ``init(store:directory:)``, those an earlier recorder left that waited for a busy
    /// database: a recovery works out the interrupted measurement from the database and these.
    public var records: [FlushLog.Record] { staged }

    /// Whether flushes wait in the log for the database.
    public var hasStaged: Bool { !staged.isEmpty }

    /// Commits `flush` of `measurement` durably, to the log (one record, its events with it).
    /// On a failure nothing of `flush` is kept and the staged flushes stay staged. Follow it
    /// with ``commitIfDue(now:)``, or with ``commitStaged(patience:)`` when its events should
    /// reach the database now.
    ///
    /// - Parameter steps: what the record asks of the store besides `flush`, applied after it
    ///   in the same transaction (``FlushLog/Step``; a `begin` before it).
    public func commit(_ flush: Flush, steps: [FlushLog.Step] = [], to measurement: Int64, now: Int64) throws(StoreError) {
        guard !flush.isEmpty || !steps.isEmpty else { return }
        let encoded = try EncodedFlush(flush)
        try log.append(encoded, steps: steps, sequence: next, measurement: measurement)
        let record = FlushLog.Record(sequence: next, measurement: measurement, flush: encoded, steps: steps)
        staged.append(record)
        next += 1
        weight += encoded.weight
        oldest = oldest ?? now
        if record.carriesEvents { eventsStaged += 1 }
    }

    /// Flushes with lifecycle events staged: durable in the log, not yet in the database.
    public private(set) var eventsStaged = 0

    /// How long a lifecycle command's commit waits for another process's transaction before
    /// its events are left waiting in the log (``commitStaged(patience:)``), seconds: a reader
    /// of a few seconds (`capture export`) does not make them wait, and `capture pause` is
    /// answered within it plus a flush.
    public static let lifecyclePatience: Double = 2

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

    /// Commits everything staged to the database now, waiting `patience` seconds for another
    /// process's transaction (by default SQLite's busy timeout, 10 s). On a failure everything
    /// stays staged; ``StoreError/busy(path:)`` is counted in ``deferred``.
    public func commitStaged(patience: Double? = nil) throws(StoreError) {
        guard !staged.isEmpty else { return }
        do {
            try store.commit(records: staged, patience: patience)
        } catch .busy {
            deferred += 1
            throw .busy(path: store.path)
        }
        clear()
    }

    /// For a full store, where ``commitStaged()`` failed: commits staged flushes one
    /// transaction each as far as they fit. The rest stay in the log, for `capture stop` or a
    /// resumed recorder to decide (``Store/applyFlushLog(wait:dropping:)``).
    public func commitWhatFits() {
        let committed = store.commitWhatFits(staged)
        eventsStaged -= staged.prefix(committed).count(where: \.carriesEvents)
        staged.removeFirst(committed)
    }

    /// Ends the log once nothing is staged: the recorder is done.
    public func close() {
        guard staged.isEmpty else { return }
        try? log.clear()
    }

    private func clear() {
        staged = []
        eventsStaged = 0
        weight = 0
        oldest = nil
        log.rewind()
    }
}
