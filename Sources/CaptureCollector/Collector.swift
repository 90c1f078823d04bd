import CaptureCore
import CaptureTransfer
import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import NIOCore

/// A Cyface collector (§2 of the protocol notes) on Hummingbird: the pre-request, chunk and
/// status PUTs of the resumable upload protocol, with bearer-token authentication, payload
/// limits, session expiry and an optional ``FaultPlan``.
///
/// Its logger gets one info line per request (method, path, status, measurement, session,
/// body bytes; never a header, so never the token); session details are at debug level.
public struct Collector: Sendable {
    let configuration: Configuration
    let authentication: CollectorAuthentication
    /// The issuer, if it serves one.
    public let issuer: Issuer?
    /// The upload sessions, over the storage that keeps their bytes.
    let sessions: CollectorSessions
    /// Where the bytes are: ``CollectorStorage`` (files in ``Configuration/dataDirectory``)
    /// unless a test gave another (``MemoryCollectorStorage``).
    var storage: any CollectorStorageDriver { sessions.storage }
    let faults: FaultPlan?
    let logger: Logger

    /// Prepares the data directory (creating it, dropping partial data of a previous run).
    public init(_ configuration: Configuration, logger: Logger) async throws {
        try await self.init(configuration, storage: CollectorStorage(directory: configuration.dataDirectory), logger: logger)
    }

    /// A collector that keeps uploads in `storage` (``Configuration/dataDirectory`` is not used).
    init(_ configuration: Configuration, storage: any CollectorStorageDriver, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        sessions = try CollectorSessions(storage: storage, expiry: configuration.sessionExpiry)
        faults = configuration.faults.isEmpty ? nil : FaultPlan(configuration.faults)
        if let settings = configuration.issuer {
            let issuer = try await Issuer(settings)
            self.issuer = issuer
            authentication = .jwt(issuer.requirements)
        } else {
            issuer = nil
            authentication = configuration.authentication
        }
    }

    /// The Hummingbird application serving the collector on `host:port` (port 0: any free port).
    /// `onRunning` receives the bound port once the server listens.
    public func application(
        host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        // First, so that it sees every answer, a refusal or a 404 for an unknown path too.
        router.add(middleware: RequestLogMiddleware(logger: logger, sessions: sessions))
        router.post("measurements") { request, context in
            try await preRequest(request, context: context)
        }
        router.put("measurements/:session") { request, context in
            try await put(request, context: context)
        }
        // Hummingbird wants one parameter name per position: the device id is `:session` here.
        router.post("measurements/:session/:measurement/attachments") { request, context in
            try await preRequest(request, context: context, attachment: true)
        }
        router.put("measurements/:session/:measurement/attachments/:attachmentSession") { request, context in
            try await put(request, context: context, parameter: "attachmentSession")
        }
        issuer?.addRoutes(to: router)
        let plan = faults
        let issuer = issuer
        let connections = ReceiveBufferLimit.Connections()
        return Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [ReceiveBufferLimit(connections)] + (plan.map { [FaultInjectionHandler(plan: $0)] } ?? []),
                    idleTimeout: configuration.idleTimeout.map { .milliseconds(Int64($0 / .milliseconds(1))) },
                    httpDecoderConfiguration: .init(
                        maxHeaderFieldSize: configuration.maxHeaderBytes, maxHeaderListSize: configuration.maxHeaderBytes))),
            configuration: .init(address: .hostname(host, port: port), serverName: "capture-collector"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                issuer?.bind(host: host, port: bound)
                await onRunning(bound)
            },
            logger: logger)
    }

    // MARK: - Pre-request

    private static let uploadLength = HTTPField.Name("x-upload-content-length")!

    func preRequest(_ request: Request, context: BasicRequestContext, attachment: Bool = false) async throws -> Response {
        var request = request
        try await authentication.authorize(request)
        guard Self.mediaType(request.headers[.contentType]) == "application/json" else {
            return Self.answer(.unsupportedMediaType, "the pre-request must be application/json")
        }
        guard let lengthText = request.headers[Self.uploadLength], let total = Int64(lengthText), total >= 0 else {
            return Self.answer(.unprocessableContent, "x-upload-content-length is missing or not a number")
        }
        guard total <= configuration.payloadLimit else {
            return Self.answer(.unprocessableContent, "payload too large: \(total) > \(configuration.payloadLimit) bytes")
        }
        // Larger bodies: Hummingbird answers 413, as Vert.x's 1 KiB BodyHandler limit does.
        let body = try await request.collectBody(upTo: CollectorProtocol.maximumPreRequestBody)
        let metadata: CollectorMetadata
        do {
            metadata = try CollectorMetadata.parse(json: Array(buffer: body))
        } catch {
            return Self.answer(HTTPResponse.Status(code: error.status), error.reason)
        }
        if attachment {
            // §2.8: the path names the measurement, the metadata the attachment and its counts.
            guard context.parameters.get("session")?.lowercased() == metadata.deviceID,
                context.parameters.get("measurement") == String(metadata.measurementID)
            else { return Self.answer(.unprocessableContent, "the path does not name the metadata's measurement") }
            guard metadata.attachmentID != nil,
                ["logCount", "imageCount", "videoCount", "filesSize"].allSatisfy({ metadata.fields[$0] != nil })
            else { return Self.answer(.unprocessableContent, "an attachment needs attachmentId and the four counts") }
            guard sessions.isParentStored(metadata) else {
                return Self.answer(.unprocessableContent, "attachment without measurement: upload the measurement first")
            }
        } else if metadata.attachmentID != nil {
            return Self.answer(.unprocessableContent, "attachments go to measurements/<device>/<measurement>/attachments")
        }
        if sessions.isStored(metadata) { return Response(status: .conflict) }
        guard let sid = sessions.open(metadata, total: total, limit: configuration.maxSessions) else {
            return Self.answer(.tooManyRequests, "too many open upload sessions; try again later", retryAfter: 30)
        }
        let scheme = request.headers[HTTPField.Name("X-Forwarded-Proto")!] ?? "http"
        let authority = request.head.authority ?? "127.0.0.1"
        let path = attachment ? "measurements/\(metadata.deviceID)/\(metadata.measurementID)/attachments/" : "measurements/"
        let location = "\(scheme)://\(authority)/\(path)(\(sid))/"
        logger.debug("session opened", metadata: ["sid": "\(sid)", "total": "\(total)"])
        await faults?.hold(.preRequest)
        return Response(status: .ok, headers: [.location: location, .contentLength: "0"])
    }

    // MARK: - PUT (chunks and status queries)

    func put(_ request: Request, context: BasicRequestContext, parameter: String = "session") async throws -> Response {
        try await authentication.authorize(request)
        // `(<32 [a-z0-9]>)`, and the trailing slash is part of the route.
        guard let component = context.parameters.get(parameter), component.hasPrefix("("), component.hasSuffix(")"),
            CollectorProtocol.isSessionID(component.dropFirst().dropLast()), request.uri.path.hasSuffix("/")
        else {
            return Self.answer(.notFound, "no such upload session")
        }
        let sid = String(component.dropFirst().dropLast())
        guard Self.mediaType(request.headers[.contentType]) == "application/octet-stream" else {
            return Self.answer(.unsupportedMediaType, "uploads must be application/octet-stream")
        }
        guard let lengthText = request.headers[.contentLength], let length = Int64(lengthText), length >= 0 else {
            return Self.answer(.unprocessableContent, "Content-Length is required")
        }
        let fault = request.headers[FaultInjectionHandler.faultHeader].flatMap(FaultPlan.Kind.init(rawValue:))
        let metadata: CollectorMetadata
        do {
            metadata = try CollectorMetadata.parse { request.headers[HTTPField.Name($0)!] }
        } catch {
            if case .notInterested = error { sessions.destroy(sid) }
            return Self.answer(HTTPResponse.Status(code: error.status), error.reason)
        }
        guard length <= configuration.payloadLimit else {
            sessions.destroy(sid)
            return Self.answer(.unprocessableContent, "payload too large")
        }
        if fault == .unavailable {
            storage.log("\(sid) \(request.headers[.contentRange] ?? "-") 503")
            let seconds = faults?.retryAfter ?? 1
            return Response(
                status: .serviceUnavailable,
                headers: [HTTPField.Name("Retry-After")!: String(seconds), .contentLength: "0"])
        }
        let session: CollectorSessions.Session
        switch await sessions.session(sid, claim: length > 0, expire: fault == .expire) {
        case .found(let found):
            session = found
        case .busy:
            // Not 404: that would make the client start again from byte 0.
            storage.log("\(sid) \(request.headers[.contentRange] ?? "-") 503 busy")
            return Self.answer(.serviceUnavailable, "another request still writes to this upload session; try again later", retryAfter: 5)
        case .unknown:
            storage.log("\(sid) \(request.headers[.contentRange] ?? "-") 404")
            return Self.answer(.notFound, "upload session expired or unknown: send a new pre-request")
        }
        guard session.metadata.deviceID == metadata.deviceID, session.metadata.measurementID == metadata.measurementID,
            session.metadata.attachmentID == metadata.attachmentID
        else {
            if length > 0 { sessions.release(sid, received: session.received) }
            return Self.answer(.unprocessableContent, "the metadata does not match the session")
        }
        guard let range = request.headers[.contentRange].flatMap(ContentRange.init) else {
            if length > 0 { sessions.release(sid, received: session.received) }
            return Self.answer(.unprocessableContent, "Content-Range is missing or malformed")
        }
        if length == 0 {
            return status(sid, session: session, range: range, fault: fault)
        }
        return try await receive(request, sid: sid, session: session, range: range, length: length, fault: fault)
    }

    /// The status query: 200 when stored, else 308 with the received range (if any).
    private func status(
        _ sid: String, session: CollectorSessions.Session, range: ContentRange, fault: FaultPlan.Kind?
    ) -> Response {
        guard case .query(let total) = range else {
            return Self.answer(.unprocessableContent, "an empty PUT needs Content-Range: bytes */<total>")
        }
        if session.completed {
            storage.log("\(sid) */\(total) 200")
            return Response(status: .ok, headers: [.contentLength: "0"])
        }
        let response = incomplete(received: session.received, omitRange: fault == .omitRange)
        storage.log("\(sid) */\(total) 308 \(response.headers[.range] ?? "-")")
        return response
    }

    private func incomplete(received: Int64?, omitRange: Bool) -> Response {
        var headers: HTTPFields = [.contentLength: "0"]
        if let received, !omitRange { headers[.range] = "bytes=0-\(received - 1)" }
        return Response(status: .init(code: 308, reasonPhrase: "Resume Incomplete"), headers: headers)
    }

    private func receive(
        _ request: Request, sid: String, session: CollectorSessions.Session, range: ContentRange, length: Int64,
        fault: FaultPlan.Kind?
    ) async throws -> Response {
        // Three steps, only the middle one async: Swift 6.3.1's optimiser crashed (signal 11,
        // splitting the coroutine) on this function written as one in release builds.
        let answer: (response: Response, released: Bool)
        do {
            switch check(sid: sid, session: session, range: range, length: length, fault: fault) {
            case .answer(let response, let released):
                answer = (response, released)
            case .receive(let to, let total, let line):
                if fault == .serverError {
                    for try await _ in request.body {}
                    storage.log("\(line) 500 (fault)")
                    answer = (Self.answer(.internalServerError, "injected fault"), false)
                } else {
                    let written = try await append(request.body, to: sid)
                    answer = try received(
                        sid: sid, session: session, written: written, length: length, to: to, total: total, line: line,
                        fault: fault)
                }
            }
        } catch {
            sessions.release(sid, received: storage.received(sid))
            throw error
        }
        if !answer.released { sessions.release(sid, received: storage.received(sid)) }
        switch answer.response.status.code {
        case 308: await faults?.hold(.incomplete)
        case 201: await faults?.hold(.created)
        default: break
        }
        return answer.response
    }

    /// What a PUT's headers decide before its body is read.
    private enum Check {
        /// Answer this (and whether the session was released on the way), without the body.
        case answer(Response, released: Bool)
        /// Receive the body: it ends at byte `to` of `total`; `line` begins its log line.
        case receive(to: Int64, total: Int64, line: String)
    }

    private func check(
        sid: String, session: CollectorSessions.Session, range: ContentRange, length: Int64, fault: FaultPlan.Kind?
    ) -> Check {
        guard case .bytes(let from, let to, let total) = range, to - from + 1 == length, total == session.total else {
            return .answer(
                Self.answer(.unprocessableContent, "Content-Range does not match Content-Length or the announced length"),
                released: false)
        }
        let line = "\(sid) \(from)-\(to)/\(total)"
        if session.completed {
            storage.log("\(line) 200")
            return .answer(Response(status: .ok, headers: [.contentLength: "0"]), released: false)
        }
        let received = storage.received(sid)
        if received == nil, from != 0 {
            storage.log("\(line) 404")
            return .answer(Self.answer(.notFound, "no data for this session: send a new pre-request"), released: false)
        }
        if received != nil, from == 0 {
            sessions.destroy(sid)
            storage.log("\(line) 404")
            return .answer(Self.answer(.notFound, "chunk file probably cleaned: send a new pre-request"), released: true)
        }
        if let received, from != received {
            storage.log("\(line) 308 bytes=0-\(received - 1)")
            return .answer(incomplete(received: received, omitRange: fault == .omitRange), released: false)
        }
        return .receive(to: to, total: total, line: line)
    }

    /// The answer once the body was received (`written` bytes of `length`), and whether the
    /// session was released (completed or destroyed).
    private func received(
        sid: String, session: CollectorSessions.Session, written: Int64, length: Int64, to: Int64, total: Int64,
        line: String, fault: FaultPlan.Kind?
    ) throws -> (response: Response, released: Bool) {
        let size = storage.received(sid) ?? 0
        guard written == length else {
            storage.log("\(line) truncated after \(written)")
            throw HTTPError(.badRequest, message: "the body ended early")
        }
        guard size - 1 == to else {
            storage.log("\(line) 500 size \(size)")
            return (Self.answer(.internalServerError, "Content-Range does not match the stored size"), false)
        }
        if to != total - 1 {
            storage.log("\(line) 308")
            return (incomplete(received: size, omitRange: fault == .omitRange), false)
        }
        if configuration.validate, session.metadata.attachmentID == nil {
            do {
                _ = try TransferFileDecoder.decode(storage.contents(of: sid))
            } catch {
                sessions.destroy(sid)
                storage.log("\(line) 422 invalid")
                return (Self.answer(.unprocessableContent, "not a valid Cyface v3 transfer file: \(error)"), true)
            }
        }
        guard try sessions.complete(sid, metadata: session.metadata, size: size) else {
            storage.log("\(line) 409")
            return (Response(status: .conflict), true)
        }
        storage.log("\(line) 201" + (fault == .loseFinal ? " (response lost)" : ""))
        logger.debug("stored", metadata: ["sid": "\(sid)", "bytes": "\(size)"])
        var headers: HTTPFields = [.contentLength: "0"]
        if fault == .loseFinal { headers[FaultInjectionHandler.loseHeader] = "1" }
        return (Response(status: .created, headers: headers), true)
    }

    /// Appends the body to the session's partial data as it arrives; returns the number of bytes
    /// written. What arrived before a broken connection (or a failed write) stays there, to be
    /// resumed.
    private func append(_ body: RequestBody, to sid: String) async throws -> Int64 {
        let writer: any PartialDataWriter
        do {
            writer = try storage.appending(to: sid)
        } catch {
            throw HTTPError(.internalServerError, message: "cannot store the upload")
        }
        var written: Int64 = 0
        do {
            for try await buffer in body {
                try buffer.withUnsafeReadableBytes { try writer.write($0) }
                written += Int64(buffer.readableBytes)
                if let throttle = configuration.throttle, throttle > 0 {
                    try await Task.sleep(for: .microseconds(Int64(buffer.readableBytes) * 1_000_000 / throttle))
                }
            }
        } catch {
            logger.debug("upload interrupted", metadata: ["bytes": "\(written)"])
        }
        return written
    }

    // MARK: - Helpers

    private static func mediaType(_ header: String?) -> String? {
        header?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    private static func answer(_ status: HTTPResponse.Status, _ reason: String, retryAfter: Int? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: reason + "\n")))
    }
}
