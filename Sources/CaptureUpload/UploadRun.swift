public import CaptureStorage
public import CaptureCore
public import CaptureTransfer
import Foundation
public import Logging

/// One upload run: the measurements of a selection, one after the other, each serialised,
/// resumed or sent, and its outcome recorded in the store. `capture upload` and any automatic
/// uploader call the same ``run(_:observer:)``.
///
/// A finished measurement whose transfer file is over the payload limit is first cut into
/// consecutive parts, each a measurement of its own (``CaptureStorage/Store/cutIntoParts(_:limit:)``),
/// delivered in order, each with its own result.
///
/// For each measurement: an unknown id is `notFound`, an open one `notFinished`, one already
/// uploaded is reported as such without a request, one with fewer than two locations is
/// marked skipped without a request. Otherwise its transfer file (the store's cached Cyface v3
/// file, see ``CaptureStorage/Store/transferFile(for:directory:)``) is uploaded with an
/// ``Uploader``. A session stored by an interrupted run is resumed only if the file has the same
/// size and SHA-256; otherwise a new one is opened. The session and each acknowledgement are
/// stored before more bytes are sent, so a crash at any moment can be resumed. A rejected token
/// (401) ends the run and keeps the session for a later run; one measurement's failure does not
/// stop the others.
///
/// ```swift
/// let settings = try device.uploadSettings()   // CaptureWiring, from the configuration
/// let run = UploadRun(store: store, dataDirectory: directory, settings: settings, options: .init(appVersion: "1.0"))
/// let report = try await run.run(.waiting(includingSkipped: false))
/// try report.check()
/// ```
public struct UploadRun: Sendable {
    /// How measurements are sent.
    public struct Options: Sendable {
        /// This program's version (`appVersion` in the metadata).
        public var appVersion: String
        /// The `User-Agent` header.
        public var userAgent: String
        /// The largest PUT body in bytes; nil sends the whole file at once.
        public var chunkSize: Int64?
        /// Retry timing per measurement.
        public var retryPolicy: UploadStateMachine.RetryPolicy
        /// The machine as the collector sees it (`deviceType`, `osVersion`).
        public var machine: UploadMetadata.Machine
        /// Send this file, as it is, instead of the measurement's transfer file (transport
        /// benchmarks; meant for a run of one measurement).
        public var transferFileOverride: String?
        /// `privacy.zones`: what they hide is left out of transfer files and metadata.
        public var privacyZones: [PrivacyZone]
        /// The collector's payload limit in bytes: a measurement with a larger transfer file is
        /// cut into parts within it before anything is sent (the collector would refuse it, 422,
        /// on every run); an attachment that large is marked skipped. Nil: none.
        public var payloadLimit: Int64?
        /// What retry budgets are counted on and back-offs sleep on (tests: a clock that moves
        /// only when a back-off sleeps).
        public var clock: any Clock<Duration> = ContinuousClock()

        /// The Cyface collector's default `measurement.payload.limit`: 100 MiB.
        public static let collectorPayloadLimit: Int64 = 104_857_600

        /// Creates options; the user agent defaults to `capture/<appVersion>`.
        public init(
            appVersion: String, userAgent: String? = nil, chunkSize: Int64? = nil,
            retryPolicy: UploadStateMachine.RetryPolicy = .standard, machine: UploadMetadata.Machine = .current,
            transferFileOverride: String? = nil, privacyZones: [PrivacyZone] = [], payloadLimit: Int64? = collectorPayloadLimit
        ) {
            self.privacyZones = privacyZones
            self.payloadLimit = payloadLimit
            self.appVersion = appVersion
            self.userAgent = userAgent ?? "capture/\(appVersion)"
            self.chunkSize = chunkSize
            self.retryPolicy = retryPolicy
            self.machine = machine
            self.transferFileOverride = transferFileOverride
        }
    }

    /// The store the measurements and their upload states are in.
    public let store: Store
    /// The data directory (where the transfer-file cache lives).
    public let dataDirectory: String
    /// The collector's base URL.
    public let collectorURL: String
    /// Origins besides the collector's that may receive the token (session URLs elsewhere).
    public let trustedOrigins: [URLOrigin]
    /// Gives the bearer token.
    public let authenticator: any UploadAuthenticator
    /// How measurements are sent.
    public let options: Options
    private let logger: Logger

    /// Creates a run against the collector at `collectorURL`; the token goes only to its origin
    /// and to `trustedOrigins`.
    public init(
        store: Store, dataDirectory: String, collectorURL: String, authenticator: some UploadAuthenticator,
        trustedOrigins: [URLOrigin] = [], options: Options, logger: Logger = Logger(label: "capture.upload")
    ) {
        self.store = store
        self.dataDirectory = dataDirectory
        self.collectorURL = collectorURL
        self.trustedOrigins = trustedOrigins
        self.authenticator = authenticator
        self.options = options
        self.logger = logger
    }

    /// Creates a run against the collector and with the token of `settings`.
    public init(
        store: Store, dataDirectory: String, settings: UploadSettings, options: Options,
        logger: Logger = Logger(label: "capture.upload")
    ) {
        self.init(
            store: store, dataDirectory: dataDirectory, collectorURL: settings.collectorURL,
            authenticator: settings.authenticator, trustedOrigins: settings.trustedOrigins, options: options,
            logger: logger)
    }

    /// Uploads the measurements of `selection`, oldest first, and reports each result.
    ///
    /// Collector answers and network trouble never throw: they are results. What throws is
    /// local: the store (``CaptureStorage/StoreError``) and serialising a measurement or reading
    /// an override file (``CaptureStorage/TransferError``); results reported before stay recorded.
    public func run(_ selection: UploadSelection, observer: (any UploadRunObserver)? = nil) async throws -> UploadReport {
        let observer = observer ?? Silent()
        let chosen = try selection.measurements(in: store)
        let uploader = Uploader(
            baseURL: collectorURL, authenticator: authenticator, chunkSize: options.chunkSize,
            policy: options.retryPolicy, trustedOrigins: trustedOrigins, userAgent: options.userAgent, logger: logger,
            clock: options.clock)
        var results: [UploadResult] = []
        do {
            measurements: for chosenID in chosen {
                for id in try deliverable(chosenID) {
                    var result = try await deliver(id, uploader: uploader, observer: observer)
                    result.part = try store.part(of: id)
                    logger.debug(
                        "measurement done",
                        metadata: ["measurement": "\(id)", "result": "\(result.outcome.rawValue)"])
                    results.append(result)
                    observer.finished(result)
                    if result.outcome == .unauthorized { break measurements }
                    guard result.outcome == .uploaded else { continue }
                    // Its attachments follow once the collector has the measurement (§2.8).
                    var stop = false
                    for attachment in try await deliverAttachments(of: id, uploader: uploader, observer: observer) {
                        results.append(attachment)
                        observer.finished(attachment)
                        stop = stop || attachment.outcome == .unauthorized
                    }
                    if stop { break measurements }
                }
            }
        } catch {
            try? await uploader.shutdown()
            throw error
        }
        try? await uploader.shutdown()
        return UploadReport(
            results: results, credentialsOrigin: authenticator.origin, credentialsRemedy: authenticator.remedy)
    }

    /// What measurement `id` is delivered as: itself, or, when its transfer file is over the
    /// payload limit, the consecutive parts the store cuts it into (``CaptureStorage/Store/cutIntoParts(_:limit:)``),
    /// each then delivered as a measurement of its own. One the collector has, or with a session
    /// it accepted (the limit lowered since), goes on whole: cut now, its fixes could reach the
    /// collector twice.
    private func deliverable(_ id: Int64) throws -> [Int64] {
        guard let limit = options.payloadLimit, options.transferFileOverride == nil,
            let record = try? store.measurement(id), !record.isOpen
        else { return [id] }
        let previous = try store.upload(of: id)
        guard previous.status != .uploaded, previous.status != .uploading || previous.sessionURL == nil else { return [id] }
        // Cut only what is over the limit as it is (the file is cached for the delivery that follows).
        let file = try store.transferFile(for: id, directory: dataDirectory, privacyZones: options.privacyZones)
        guard file.size > limit else { return [id] }
        return try store.cutIntoParts(id, limit: limit) ?? [id]
    }

    /// One measurement, from its record to its recorded outcome.
    private func deliver(_ id: Int64, uploader: Uploader, observer: any UploadRunObserver) async throws -> UploadResult {
        let record: MeasurementRecord
        // A Result rather than `catch StoreError.measurementNotFound`: that `catch` in this async
        // function crashes Swift 6.3.1's SILGen (ownership verifier).
        switch Result(catching: { () throws(StoreError) in try store.measurement(id) }) {
        case .success(let found): record = found
        case .failure(.measurementNotFound): return UploadResult(measurement: id, outcome: .notFound, reason: "no measurement \(id)")
        case .failure(let error): throw error
        }
        guard !record.isOpen else {
            return UploadResult(measurement: id, outcome: .notFinished, reason: "still open")
        }
        let previous = try store.upload(of: id)
        if previous.status == .uploaded {
            return UploadResult(measurement: id, outcome: .uploaded, reason: "already uploaded")
        }
        guard let metadata = try metadata(of: id) else {
            try store.finishUpload(of: id, status: .skipped, reason: CollectorProtocol.tooFewLocations)
            return UploadResult(measurement: id, outcome: .skipped, reason: CollectorProtocol.tooFewLocations)
        }
        let previousSession = previous.status == .uploading ? previous.sessionURL : nil
        let file: TransferFile
        let hash: SessionHash
        if let path = options.transferFileOverride, previousSession == nil {
            // Nothing to resume: the upload need not wait for the hash (BackgroundHash).
            let size = try TransferFile.size(of: path)
            // The uploader reads only the path and the size; the hash reaches the store below.
            file = TransferFile(path: path, size: size, sha256: "")
            let store = store
            hash = .pending(
                BackgroundHash(path: path, size: size) { sha256 in
                    try? store.recordUploadHash(of: id, sha256: sha256, totalLength: size)
                })
        } else {
            file =
                if let path = options.transferFileOverride {
                    try TransferFile(hashing: path)
                } else {
                    try store.transferFile(for: id, directory: dataDirectory, privacyZones: options.privacyZones)
                }
            hash = .known(file.sha256)
        }
        // Whatever happens below, the hash ends up in the store as the upload leaves it.
        defer { hash.wait() }
        // A session already open was accepted by the collector for this size.
        if previousSession == nil, let reason = overPayloadLimit(file, what: "its transfer file") {
            try store.finishUpload(of: id, status: .skipped, reason: reason)
            return UploadResult(measurement: id, outcome: .skipped, reason: reason)
        }
        // Resume only a session for exactly these bytes; another hash voids it.
        let resumable = previousSession != nil && hash.known != nil && previous.fileSHA256 == hash.known
            && previous.totalLength == file.size
        let session = resumable ? previousSession : nil
        try hash.withHash { sha256 in
            try store.beginUpload(
                of: id, sessionURL: session, totalLength: file.size, sha256: sha256,
                acknowledged: resumable ? previous.acknowledged : 0)
        }
        try store.noteUploadAttempt(of: id)
        observer.transferBegins(measurement: id, bytes: file.size)
        let clock = ContinuousClock()
        let began = clock.now
        let outcome = await uploader.upload(
            file, metadata: metadata, session: session,
            observer: StoreObserver(store: store, target: .measurement(id), file: file, hash: hash, run: observer))
        let elapsed = clock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var result = UploadResult(measurement: id, outcome: .uploaded, bytes: file.size, seconds: seconds)
        switch outcome {
        case .uploaded:
            try store.finishUpload(of: id, status: .uploaded)
        case .alreadyStored:
            try store.finishUpload(of: id, status: .uploaded, reason: "the collector already had it (409)")
            result.reason = "the collector already had it"
        case .skipped(let reason):
            try store.finishUpload(of: id, status: .skipped, reason: reason)
            result.outcome = .skipped
            result.reason = reason
        case .failed(let reason):
            try store.finishUpload(of: id, status: .failed, reason: reason)
            result.outcome = .failed
            result.reason = reason
        case .unauthorized(let reason):
            // The session stays: with working credentials a later run continues where this stopped.
            result.outcome = .unauthorized
            result.reason = reason
        }
        return result
    }

    private struct Silent: UploadRunObserver {}

    /// Why a file larger than the collector's payload limit is skipped, or nil if it fits. The
    /// collector answers 422 to such a pre-request, on every run (§2.10). A measurement reaches
    /// this only when no cut into parts fits (``deliverable(_:)``): a limit smaller than a few
    /// seconds of its data.
    private func overPayloadLimit(_ file: TransferFile, what: String) -> String? {
        guard let limit = options.payloadLimit, file.size > limit else { return nil }
        return "\(what) is \(file.size) bytes, over the collector's payload limit of \(limit) (collector.payload_limit)"
    }

    /// The measurement's metadata with its attachments counted; nil when it has fewer than two
    /// locations to send.
    private func metadata(of id: Int64) throws -> UploadMetadata? {
        guard
            var metadata = try UploadMetadata(
                store: store, measurement: id, appVersion: options.appVersion, machine: options.machine,
                privacyZones: options.privacyZones)
        else { return nil }
        let attachments = try store.attachments(of: id)
        let bytes = attachments.reduce(Int64(0)) { total, attachment in
            let size = (try? FileManager.default.attributesOfItem(atPath: attachment.path(in: dataDirectory))[.size]) as? Int64
            return total + (size ?? 0)
        }
        metadata.setAttachments(
            logs: attachments.filter { !$0.format.isImage }.count, images: attachments.filter(\.format.isImage).count,
            bytes: bytes)
        return metadata
    }

    /// Uploads the attachments of measurement `id` that the collector does not have yet, raw,
    /// through `measurements/<deviceId>/<measurementId>/attachments` (§2.8), resumable and
    /// exactly once like measurements.
    private func deliverAttachments(
        of id: Int64, uploader: Uploader, observer: any UploadRunObserver
    ) async throws -> [UploadResult] {
        let waiting = try store.attachments(of: id).filter { $0.status != .uploaded && $0.status != .skipped }
        guard !waiting.isEmpty, let metadata = try metadata(of: id),
            let deviceID = metadata["deviceId"], let measurementID = metadata["measurementId"]
        else { return [] }
        var results: [UploadResult] = []
        for attachment in waiting {
            var result = UploadResult(measurement: id, outcome: .uploaded, attachment: attachment.id, name: attachment.name)
            let file: TransferFile
            do {
                // The recorder's log, torn by a power cut, goes out as its whole lines.
                if attachment.format == .jsonl, attachment.name == "recorder.jsonl" {
                    AttachmentFile.cutTornLastLine(attachment.path(in: dataDirectory))
                }
                file = try TransferFile(hashing: attachment.path(in: dataDirectory))
            } catch {
                try store.finishAttachmentUpload(attachment.id, status: .skipped, reason: "its file is gone: \(error)")
                result.outcome = .skipped
                result.reason = "its file is gone"
                results.append(result)
                continue
            }
            if let reason = overPayloadLimit(file, what: "the file") {
                try store.finishAttachmentUpload(attachment.id, status: .skipped, reason: reason)
                (result.outcome, result.reason) = (.skipped, reason)
                results.append(result)
                continue
            }
            let resumable = attachment.status == .uploading && attachment.sessionURL != nil
                && attachment.fileSHA256 == file.sha256 && attachment.totalLength == file.size
            try store.beginAttachmentUpload(
                attachment.id, sessionURL: resumable ? attachment.sessionURL : nil, totalLength: file.size,
                sha256: file.sha256, acknowledged: resumable ? attachment.acknowledged : 0)
            observer.transferBegins(measurement: id, bytes: file.size)
            let began = ContinuousClock.now
            let outcome = await uploader.upload(
                file, metadata: metadata.forAttachment(attachment.id), session: resumable ? attachment.sessionURL : nil,
                observer: StoreObserver(
                    store: store, target: .attachment(attachment.id), file: file, hash: .known(file.sha256), run: observer),
                endpoint: "measurements/\(deviceID)/\(measurementID)/attachments")
            let elapsed = ContinuousClock.now - began
            result.bytes = file.size
            result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            switch outcome {
            case .uploaded:
                try store.finishAttachmentUpload(attachment.id, status: .uploaded)
            case .alreadyStored:
                try store.finishAttachmentUpload(attachment.id, status: .uploaded, reason: "the collector already had it (409)")
                result.reason = "the collector already had it"
            case .skipped(let reason):
                try store.finishAttachmentUpload(attachment.id, status: .skipped, reason: reason)
                (result.outcome, result.reason) = (.skipped, reason)
            case .failed(let reason):
                try store.finishAttachmentUpload(attachment.id, status: .failed, reason: reason)
                (result.outcome, result.reason) = (.failed, reason)
            case .unauthorized(let reason):
                // The session stays, as for measurements.
                (result.outcome, result.reason) = (.unauthorized, reason)
                results.append(result)
                return results
            }
            results.append(result)
        }
        return results
    }
}
