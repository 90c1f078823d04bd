import AsyncHTTPClient
public import CaptureCore
public import CaptureTransfer
public import CaptureStorage
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// What the uploader tells its caller while it works. The session and every acknowledgement
/// are reported before the next byte is sent, so a caller that stores them can resume after a
/// crash; if storing fails, throw and the upload stops.
public protocol UploadObserver: Sendable {
    /// A new session is open (or a pre-request is about to replace the old one: `url` nil).
    func sessionChanged(_ url: String?) throws
    /// The collector has confirmed `bytes` bytes.
    func acknowledged(_ bytes: Int64) throws
    /// Bytes of the file handed to the network so far (for progress; may go back after a resume).
    func sent(_ bytes: Int64)
    /// The uploader is waiting `milliseconds` before retrying, because of `problem`.
    func retrying(after milliseconds: Int64, problem: String)
}

/// Uploads transfer files to a Cyface collector with the resumable protocol (§2), driving an
/// ``UploadStateMachine`` over AsyncHTTPClient.
///
/// HTTP redirects are not followed (a 308 is the protocol's "resume incomplete"), HTTPS
/// verifies certificates with the system trust store, every body has an explicit
/// `Content-Length`, and file bytes are streamed from disk.
public final class Uploader: Sendable {
    /// The collector's base URL, ending in `/` (`https://host/api/v4/`).
    public let base: String
    private let authenticator: any UploadAuthenticator
    private let chunkSize: Int64?
    private let policy: UploadStateMachine.RetryPolicy
    /// Where the token may go: the base URL's origin and the trusted ones.
    private let scope: TokenScope?
    private let client: HTTPClient
    private let logger: Logger
    private let userAgent: String
    /// What the retry budget and the back-off are measured on (a test's clock may advance only
    /// when a back-off sleeps).
    private let clock: any Clock<Duration>
    /// What this uploader (one run) learnt about the collector so far.
    private let reach = Mutex(Reach())

    /// Whether the collector answered in this run, and how much of the short budget for one
    /// that never did is spent.
    private struct Reach {
        var answered = false
        var unansweredSpent: Int64 = 0
        var reported = false
    }

    /// Creates an uploader.
    ///
    /// - Parameters:
    ///   - baseURL: the collector base, such as `https://example.com/api/v4`.
    ///   - authenticator: gives the bearer token for each request; the token is sent in
    ///     `Authorization` and never logged.
    ///   - chunkSize: the largest PUT body in bytes; nil sends the whole file at once.
    ///   - trustedOrigins: origins besides the base URL's that may receive the token (a
    ///     collector whose sessions live on another host). A session `Location` on any other
    ///     origin fails the upload; the token is never sent there.
    ///   - userAgent: the `User-Agent` header.
    ///   - clock: what the retry budget is counted on and back-offs sleep on.
    public init(
        baseURL: String, authenticator: some UploadAuthenticator, chunkSize: Int64? = nil,
        policy: UploadStateMachine.RetryPolicy = .standard, trustedOrigins: [URLOrigin] = [],
        userAgent: String = "capture", logger: Logger = Logger(label: "capture.upload"),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.clock = clock
        base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        scope = URLOrigin(base).map { TokenScope(collector: $0, trusted: trustedOrigins) }
        self.authenticator = authenticator
        self.chunkSize = chunkSize
        self.policy = policy
        self.logger = logger
        self.userAgent = userAgent
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(60)),
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        // A failed connection fails the request at once (AsyncHTTPClient would otherwise retry it
        // silently until the request's deadline): the state machine retries, and says so.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the connections. Call once when done.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Uploads one file; returns how it ended. Never throws: network trouble is retried within
    /// the policy's budget and then reported as ``UploadStateMachine/Outcome/failed(reason:)``;
    /// an authenticator that has no token to give ends it as
    /// ``UploadStateMachine/Outcome/unauthorized(reason:)``, like a 401.
    ///
    /// - Parameter session: a session URL stored by an earlier, interrupted run: the collector
    ///   is asked where it stands before anything is sent.
    /// - Parameter endpoint: where the pre-request goes, relative to the base: `measurements`, or
    ///   `measurements/<deviceId>/<measurementId>/attachments` for an attachment (§2.8).
    public func upload(
        _ file: TransferFile, metadata: UploadMetadata, session: String?, observer: some UploadObserver,
        endpoint: String = "measurements"
    ) async -> UploadStateMachine.Outcome {
        let known = reach.withLock { $0 }
        var machine = UploadStateMachine(
            totalLength: file.size, chunkSize: chunkSize, policy: policy, scope: scope,
            renewable: authenticator.renewable, answered: known.answered, unansweredSpent: known.unansweredSpent)
        let elapsed = clock.stopwatch()
        defer {
            let spent = elapsed()
            reach.withLock { reach in
                if machine.answered { reach.answered = true } else { reach.unansweredSpent += spent }
            }
        }
        var action = machine.start(session: session)
        var persistedSession = session
        var persistedAcknowledged = machine.acknowledged
        do {
            while true {
                // A finished machine has no session, but that does not void the stored one: after
                // a 401 it is resumed by a later run (every other ending is recorded by the caller).
                let finished = if case .done = action { true } else { false }
                if !finished, machine.session != persistedSession {
                    try observer.sessionChanged(machine.session)
                    persistedSession = machine.session
                }
                if machine.acknowledged != persistedAcknowledged {
                    try observer.acknowledged(machine.acknowledged)
                    persistedAcknowledged = machine.acknowledged
                }
                let token: BearerToken
                switch action {
                case .done(let outcome):
                    return outcome
                case .backOff(let milliseconds):
                    observer.retrying(after: milliseconds, problem: firstReport(machine))
                    try await clock.sleep(for: .milliseconds(milliseconds))
                    action = machine.backOffElapsed(elapsed: elapsed())
                    continue
                case .renewToken:
                    await authenticator.tokenRejected()
                    logger.info("the collector refused the token (401); renewing it")
                    action = machine.tokenRenewed()
                    continue
                case .preRequest, .put, .queryStatus:
                    // Asked before every request, so that a token about to expire can be renewed
                    // between them.
                    do {
                        token = try await authenticator.bearerToken()
                    } catch let error as OAuthError {
                        guard case .unreachable = error else { return .unauthorized(reason: "\(error)") }
                        // The issuer is down: like the collector being down, retried within the budget.
                        action = machine.transportFailed("\(error)", elapsed: elapsed())
                        continue
                    } catch {
                        return .unauthorized(reason: "no usable token: \(error)")
                    }
                }
                switch action {
                case .done, .backOff, .renewToken:
                    continue  // handled above
                case .preRequest:
                    if persistedSession != nil {
                        try observer.sessionChanged(nil)
                        persistedSession = nil
                    }
                    do {
                        let response = try await preRequest(file, metadata: metadata, token: token, endpoint: endpoint)
                        action = machine.preRequestAnswered(response, elapsed: elapsed())
                    } catch let error as LocalFileError {
                        return .failed(reason: error.description)
                    } catch {
                        action = machine.transportFailed(describe(error, url: base + endpoint), elapsed: elapsed())
                    }
                case .put(let url, let range):
                    do {
                        let response = try await put(
                            url, file: file, range: range, metadata: metadata, token: token, observer: observer)
                        action = machine.putAnswered(response, elapsed: elapsed())
                    } catch let error as LocalFileError {
                        return .failed(reason: error.description)
                    } catch {
                        action = machine.transportFailed(describe(error, url: url), elapsed: elapsed())
                    }
                case .queryStatus(let url):
                    do {
                        let response = try await queryStatus(url, file: file, metadata: metadata, token: token)
                        action = machine.statusAnswered(response, elapsed: elapsed())
                    } catch {
                        action = machine.transportFailed(describe(error, url: url), elapsed: elapsed())
                    }
                }
            }
        } catch is CancellationError {
            return .failed(reason: "interrupted")
        } catch {
            return .failed(reason: "cannot record the upload state: \(error)")
        }
    }

    // MARK: - Requests

    private func preRequest(
        _ file: TransferFile, metadata: UploadMetadata, token: BearerToken, endpoint: String
    ) async throws -> UploadStateMachine.Response {
        var request = HTTPClientRequest(url: base + endpoint)
        request.method = .POST
        addCommonHeaders(&request.headers, metadata: metadata, token: token)
        request.headers.replaceOrAdd(name: "Content-Type", value: CollectorProtocol.jsonContentType)
        request.headers.replaceOrAdd(name: "x-upload-content-length", value: String(file.size))
        request.headers.replaceOrAdd(name: "x-upload-content-type", value: CollectorProtocol.binaryContentType)
        let body = metadata.json
        request.body = .bytes(ByteBuffer(bytes: body))
        logger.debug("pre-request", metadata: ["url": "\(base)\(endpoint)", "bytes": "\(file.size)"])
        var response = try await send(request, deadline: shortDeadline)
        response.location = response.location.flatMap { Self.sessionURL($0, relativeTo: base + endpoint) }
        return response
    }

    /// A `Location` as an absolute http(s) URL, resolved against the request's URL if relative
    /// (RFC 9110 §10.2.2); nil if it is not one, so that the upload fails instead of retrying
    /// requests that can never be sent.
    static func sessionURL(_ location: String, relativeTo request: String) -> String? {
        let text = location.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, let url = URL(string: text, relativeTo: URL(string: request))?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else { return nil }
        return url.absoluteString
    }

    /// The deadline of a request without a file body (pre-request, status query): 60 s, but no
    /// longer than the retry budget, so that a collector that never answers is given up in time.
    private var shortDeadline: TimeAmount {
        .milliseconds(max(1000, min(60_000, policy.budget)))
    }

    private func put(
        _ url: String, file: TransferFile, range: ClosedRange<Int64>, metadata: UploadMetadata, token: BearerToken,
        observer: some UploadObserver
    ) async throws -> UploadStateMachine.Response {
        var request = HTTPClientRequest(url: url)
        request.method = .PUT
        addCommonHeaders(&request.headers, metadata: metadata, token: token)
        request.headers.replaceOrAdd(name: "Content-Type", value: CollectorProtocol.binaryContentType)
        request.headers.replaceOrAdd(
            name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)")
        let start = range.lowerBound
        let chunks = FileChunks(path: file.path, range: range) { observer.sent(start + $0) }
        // A known length: AsyncHTTPClient sends it as Content-Length and never chunks.
        request.body = .stream(chunks, length: .known(chunks.count))
        logger.debug("put", metadata: ["from": "\(range.lowerBound)", "to": "\(range.upperBound)"])
        // At least 100 kB/s, or the PUT is given up and the collector asked where it stands.
        let seconds = 60 + chunks.count / 100_000
        return try await send(request, deadline: .seconds(seconds))
    }

    private func queryStatus(
        _ url: String, file: TransferFile, metadata: UploadMetadata, token: BearerToken
    ) async throws -> UploadStateMachine.Response {
        var request = HTTPClientRequest(url: url)
        request.method = .PUT
        addCommonHeaders(&request.headers, metadata: metadata, token: token)
        request.headers.replaceOrAdd(name: "Content-Type", value: CollectorProtocol.binaryContentType)
        request.headers.replaceOrAdd(name: "Content-Range", value: "bytes */\(file.size)")
        request.body = .bytes(ByteBuffer())
        logger.debug("status query")
        return try await send(request, deadline: shortDeadline)
    }

    /// Authorization, User-Agent and every metadata field.
    private func addCommonHeaders(_ headers: inout HTTPHeaders, metadata: UploadMetadata, token: BearerToken) {
        headers.replaceOrAdd(name: "Authorization", value: token.authorization)
        headers.replaceOrAdd(name: "User-Agent", value: userAgent)
        for field in metadata.fields { headers.replaceOrAdd(name: field.name, value: field.value) }
    }

    private func send(_ request: HTTPClientRequest, deadline: TimeAmount) async throws -> UploadStateMachine.Response {
        let response = try await client.execute(request, timeout: deadline, logger: logger)
        var reason: [UInt8] = []
        // Keep the start of the body as the reason; drain the rest so the connection is reusable.
        for try await buffer in response.body where reason.count < 512 {
            reason += buffer.readableBytesView.prefix(512 - reason.count)
        }
        // One printable line: a hostile body must not move the cursor or colour the terminal.
        let text = String(
            String.UnicodeScalarView(
                String(decoding: reason, as: UTF8.self).unicodeScalars.map {
                    $0.properties.generalCategory == .control ? " " : $0
                })
        ).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return UploadStateMachine.Response(
            status: Int(response.status.code), location: response.headers.first(name: "Location"),
            range: response.headers.first(name: "Range"), reason: text,
            retryAfter: UploadStateMachine.retryAfter(
                response.headers.first(name: "Retry-After"), now: Int64((Date().timeIntervalSince1970 * 1000).rounded())))
    }

    /// A request's failure without an answer, in the words every command uses.
    private func describe(_ error: any Error, url: String) -> String {
        ConnectionProblem(error, url: url).description
    }

    /// The machine's last problem; the first one of a run whose collector has not answered
    /// names the collector's URL, so that a misspelt or dead one is seen at once.
    private func firstReport(_ machine: UploadStateMachine) -> String {
        let first = reach.withLock { reach in
            defer { reach.reported = true }
            return !reach.reported && !reach.answered && !machine.answered
        }
        return first ? "the collector at \(base) does not answer: \(machine.lastProblem)" : machine.lastProblem
    }
}

extension Clock where Duration == Swift.Duration {
    /// Milliseconds since the call, on this clock.
    func stopwatch() -> () -> Int64 {
        let began = now
        return {
            let duration = began.duration(to: self.now)
            return duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }
    }
}
