public import CaptureStorage
import CaptureCore
import Foundation

/// One pass of the delivery policy, as `capture sync` (and the timer behind it) runs it: take the
/// uploader lock, keep the device login alive (``LoginKeepAlive``: refreshed when due, also when
/// nothing waits; a login that is gone ends the pass, said once), decide with
/// ``Delivery/decide(totals:state:policy:now:force:)``, hold back on a metered connection (`upload.unmetered_only`), check that the collector answers at all, upload
/// what waits through ``UploadRun``, remember the outcome with its backoff, and prune as
/// `retention.*` allows (after every pass, delivered or not). A pass that finds the disk full
/// prunes delivered measurements for room first and tries once more.
///
/// Any front end (the command line, a service, a test) calls the same ``run(force:)``; it
/// returns what happened and prints nothing.
///
/// ```swift
/// let pass = DeliveryPass(store: store, dataDirectory: directory, policy: policy, retention: retention,
///                         options: .init(appVersion: "1.0"), settings: { settings })
/// switch try await pass.run(force: false) { … }
/// ```
public struct DeliveryPass: Sendable {
    /// What a pass did.
    public enum Outcome: Sendable {
        /// Another uploader (`capture upload`, another sync) holds the lock; nothing was done.
        case busy(waiting: Int)
        /// Nothing waits.
        case nothingWaiting
        /// Measurements wait, but the policy says not yet (`reason`).
        case notYet(reason: String, waiting: Int)
        /// Earlier passes failed and the backoff lasts until `until` (Unix ms); `state` says why.
        case backingOff(until: Int64, state: DeliveryState, waiting: Int)
        /// The connection is metered and `upload.unmetered_only` holds the rides back.
        case metered(waiting: Int)
        /// The collector did not answer; the failure and the next attempt are stored in `state`.
        case unreachable(state: DeliveryState, waiting: Int, metering: Metering?)
        /// The device login is gone (the issuer refused its refresh token): nothing is sent until
        /// a new login; no backoff is stored, so the first pass after it delivers.
        case loginGone(LoginLifetime.Report, waiting: Int)
        /// An upload run took place (every measurement may still have failed: see
        /// ``UploadReport/check()``); `state` is what was stored, `waiting` counts what waits after it.
        case delivered(UploadReport, state: DeliveryState, waiting: Int, metering: Metering?)
    }

    /// What a pass notes on its way, for a log: in order, as it happens.
    public enum Note: Sendable, Equatable {
        /// The policy says deliver, for this reason.
        case delivering(reason: String)
        /// `upload.unmetered_only`, but whether the connection is metered is unknown: sending.
        case meteringUnknown
        /// Retention removed this many measurements after the pass.
        case pruned(Int)
        /// The device login was refreshed to keep it alive; it now lasts until the report's expiry.
        case loginRefreshed(LoginLifetime.Report)
        /// The device login was due for a refresh that did not happen (why); the next pass tries again.
        case loginNotRefreshed(String)
    }

    /// The store the measurements wait in.
    public var store: Store
    /// The data directory (the uploader lock, the transfer-file cache).
    public var dataDirectory: String
    /// When to deliver.
    public var policy: DeliveryPolicy
    /// What may be removed after the pass.
    public var retention: RetentionPolicy
    /// How measurements are sent.
    public var options: UploadRun.Options
    /// The collector and the credentials; asked only once the pass is going to send, so that a
    /// device with nothing to send needs no collector configured.
    public var settings: @Sendable () throws -> UploadSettings
    /// Whether the connection is metered (NetworkManager by default).
    public var metering: @Sendable () -> Metering = { Metering.current() }
    /// Whether the collector answers: `nil` if it does, else why not (``Delivery/probe(_:timeout:)``).
    public var probe: @Sendable (String) async -> String? = { await Delivery.probe($0) }
    /// The wall clock, Unix ms.
    public var clock: @Sendable () -> Int64 = { Delivery.nowMs() }
    /// The device login to keep alive (`auth.*`); nil: none (a token file, or no issuer).
    public var login: OAuthSettings?

    /// A pass over `store` in `dataDirectory`.
    public init(
        store: Store, dataDirectory: String, policy: DeliveryPolicy, retention: RetentionPolicy, options: UploadRun.Options,
        settings: @escaping @Sendable () throws -> UploadSettings
    ) {
        self.store = store
        self.dataDirectory = dataDirectory
        self.policy = policy
        self.retention = retention
        self.options = options
        self.settings = settings
    }

    /// Runs one pass holding the uploader lock, then prunes. `force` (`--now`) delivers
    /// whatever waits, whatever the policy and the backoff say.
    ///
    /// - Throws: what the store or the upload settings throw (after pruning all the same).
    public func run(force: Bool, note: @Sendable (Note) -> Void = { _ in }) async throws -> Outcome {
        let held = try await UploaderLock.whileHeld(directory: dataDirectory) { () async throws -> Outcome in
            // Whatever the pass decided (nothing waits, backing off, the collector down),
            // retention applies: what it allows goes now, so that an age limit or the store
            // budget does not wait for the next delivery.
            let outcome: Outcome
            do {
                outcome = try await passMakingRoom(force: force, note: note)
            } catch {
                try? prune(note: note)
                throw error
            }
            try prune(note: note)
            return outcome
        }
        guard let held else { return .busy(waiting: try store.deliveryTotals().waiting) }
        return held
    }

    /// A pass of a device with no store yet (nothing recorded, nothing to send): it only keeps
    /// the device login alive, so that a box logged in before its first ride stays logged in.
    public static func withoutStore(login: OAuthSettings?, now: Int64, note: @Sendable (Note) -> Void) async -> Outcome {
        guard let login, let gone = await keepAlive(login, now: now, note: note) else { return .nothingWaiting }
        return .loginGone(gone, waiting: 0)
    }

    /// Refreshes `login` when due, noting what happened; the login's report when it is gone.
    private static func keepAlive(_ login: OAuthSettings, now: Int64, note: @Sendable (Note) -> Void) async -> LoginLifetime.Report? {
        switch await LoginKeepAlive.run(login, now: now) {
        case .gone(let report): return report
        case .refreshed(let report): note(.loginRefreshed(report))
        case .failed(let why): note(.loginNotRefreshed(why))
        case .none, .fresh: break
        }
        return nil
    }

    /// One pass; on a full disk (or store), delivered measurements are pruned for room, as the
    /// recorder does when a commit does not fit (``CaptureStorage/Store/pruneForRoom(_:now:directory:room:)``),
    /// and the pass runs once more. Nothing delivered to remove: the disk-full fault as it is.
    private func passMakingRoom(force: Bool, note: @Sendable (Note) -> Void) async throws -> Outcome {
        do {
            return try await pass(force: force, note: note)
        } catch let error as any KindedError where error.faultKind == .diskFull {
            let pruned = try store.pruneForRoom(retention, now: clock(), directory: dataDirectory)
            guard !pruned.removed.isEmpty else { throw error }
            note(.pruned(pruned.removed.count))
            return try await pass(force: force, note: note)
        }
    }

    /// One pass, holding the uploader lock.
    private func pass(force: Bool, note: @Sendable (Note) -> Void) async throws -> Outcome {
        let totals = try store.deliveryTotals()
        var state = try store.deliveryState()
        let now = clock()
        if let login, let gone = await Self.keepAlive(login, now: now, note: note) {
            return .loginGone(gone, waiting: totals.waiting)
        }
        switch Delivery.decide(totals: totals, state: state, policy: policy, now: now, force: force) {
        case .nothingWaiting: return .nothingWaiting
        case .notYet(let reason): return .notYet(reason: reason, waiting: totals.waiting)
        case .backingOff(let until): return .backingOff(until: until, state: state, waiting: totals.waiting)
        case .deliver(let reason): note(.delivering(reason: reason))
        }
        var metered: Metering?
        if policy.unmeteredOnly {
            let found = metering()
            metered = found
            if found == .metered { return .metered(waiting: totals.waiting) }
            if found == .unknown { note(.meteringUnknown) }
        }
        let settings = try settings()
        state.lastAttemptAt = now
        if let problem = await probe(settings.collectorURL) {
            state.failures += 1
            state.lastError = "the collector did not answer: \(problem)"
            state.nextAttemptAt = Delivery.nextAttempt(afterFailures: state.failures, now: now)
            try store.recordDeliveryPass(state)
            return .unreachable(state: state, waiting: totals.waiting, metering: metered)
        }
        let upload = UploadRun(store: store, dataDirectory: dataDirectory, settings: settings, options: options)
        let report = try await upload.run(.waiting(includingSkipped: false))
        if report.tokenRejected, let login, let gone = LoginLifetime.report(loginFile: login.loginPath, now: clock()),
            gone.health == .gone
        {
            // The login ended during the run: said once, as at the start of a pass.
            return .loginGone(gone, waiting: try store.deliveryTotals().waiting)
        }
        if report.missed.isEmpty && !report.tokenRejected {
            state = DeliveryState(failures: 0, lastAttemptAt: now)
        } else {
            state.failures += 1
            state.lastError = report.tokenRejected ? "the token was rejected" : "\(report.missed.count) measurement(s) failed"
            state.nextAttemptAt = Delivery.nextAttempt(afterFailures: state.failures, now: now)
        }
        try store.recordDeliveryPass(state)
        return .delivered(report, state: state, waiting: try store.deliveryTotals().waiting, metering: metered)
    }

    /// Removes what the retention policy allows.
    private func prune(note: (Note) -> Void) throws {
        let pruned = try store.prune(retention, now: clock(), directory: dataDirectory)
        if !pruned.removed.isEmpty { note(.pruned(pruned.removed.count)) }
    }
}
