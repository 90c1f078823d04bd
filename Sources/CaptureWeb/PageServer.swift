package import CaptureCore
import CaptureRecorder
import CaptureStorage
import Dispatch
import Foundation
import Glibc
package import Hummingbird
import HummingbirdCore
import HTTPTypes
package import Logging
package import NIOCore
import NIOPosix
import ServiceLifecycle

/// A request's context: Hummingbird's, with the client's address (the gate limits by it).
package struct PageContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's address without its port: one gate entry per phone, not per connection.
    var client: String { remoteAddress?.ipAddress ?? "unknown" }
}

/// `capture serve`: the page and its JSON API over HTTP, for holders of the access token.
///
/// Routes: `GET /` (the status page), `/part/status` (its live part), `/rides`, `/rides/ID`,
/// `/rides/ID/map.svg`; `POST /action/{mark,begin,end,modality,deliver}` (the page's buttons:
/// 303 back to `/` with what happened); `GET /api/status` (`capture status --json`),
/// `/api/rides` (`capture list --json`), `/api/rides/ID` (`capture show --json`); `POST
/// /api/{mark,begin,end,modality,deliver}` (JSON answers; `modality` takes `{"modality":"CAR"}`).
/// `GET /login` and `POST /login` (the form, which sets the cookie), `POST /logout`, and `GET
/// /health` need no token.
package struct PageServer: Sendable {
    package let box: Box
    let gate: Gate
    let logger: Logger
    /// The cookie the login form sets.
    static let cookie = "capture_token"

    package init(box: Box, token: AccessToken, logger: Logger) {
        self.box = box
        self.gate = Gate(token: token)
        self.logger = logger
    }

    /// The server, listening on `host`:`port`; `onRunning` gets the bound port.
    package func application(
        host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "capture serve"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    func router() -> Router<PageContext> {
        let router = Router(context: PageContext.self)
        router.add(middleware: TokenMiddleware(gate: gate))
        router.get("health") { _, _ in "capture serve\n" }
        router.get("login") { _, _ in Self.html(Page.login()) }
        router.post("login") { request, context in try await login(request, context: context) }
        router.post("logout") { _, _ in
            var response = Self.redirect("/login")
            response.setCookie(Cookie(name: Self.cookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        router.get("/") { request, _ in
            let said = request.uri.queryParameters["said"].map(String.init)
            let (report, size) = try await offLoop { (try box.status(), try box.storeSize()) }
            return Self.html(Page.status(report, storeSize: size, budget: box.budget, said: said, now: Self.now()))
        }
        router.get("part/status") { _, _ in
            let (report, size) = try await offLoop { (try box.status(), try box.storeSize()) }
            return Self.html(Page.live(report, storeSize: size, budget: box.budget, now: Self.now()))
        }
        router.get("rides") { _, _ in Self.html(Page.rides(try await offLoop { try box.rides() })) }
        router.get("rides/:id") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return Self.html(Page.ride(try await offLoop { try box.ride(id) }))
        }
        router.get("rides/:id/map.svg") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let svg = try await offLoop { try box.map(id) }
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: svg)))
        }
        router.post("action/:action") { request, context in
            let said: String
            do {
                let action = try await Self.action(context.parameters.get("action"), request: request, context: context)
                said = Self.said(try await offLoop { try box.perform(action) }, action: action)
            } catch let error as PageError {
                throw error
            } catch {
                said = "\(error)"
            }
            return Self.redirect("/?said=" + (said.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
        router.get("api/status") { _, _ in try Self.json(try await offLoop { try box.status() }) }
        router.get("api/rides") { _, _ in try Self.json(try await offLoop { try box.rides() }) }
        router.get("api/rides/:id") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return try Self.json(try await offLoop { try box.ride(id) })
        }
        router.post("api/:action") { request, context in
            let action = try await Self.action(context.parameters.get("action"), request: request, context: context)
            do {
                switch try await offLoop({ try box.perform(action) }) {
                case .recorded(let report): return try Self.json(report)
                case .delivering(let outcome): return try Self.json(DeliveryStarted(outcome))
                }
            } catch {
                let status = Self.status(of: error)
                return try Self.json(["error": "\(error)"], status: status)
            }
        }
        return router
    }

    /// `POST /login`: the form's token; right, a cookie and back to `/`; wrong, the form again.
    private func login(_ request: Request, context: PageContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 4096)
        let form = try? URLEncodedFormDecoder().decode([String: String].self, from: String(buffer: body))
        let token = form?["token"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        switch gate.decide(token, client: context.client, now: Self.now()) {
        case .allowed:
            var response = Self.redirect("/")
            response.setCookie(
                Cookie(name: Self.cookie, value: token ?? "", maxAge: 30 * 86_400, path: "/", httpOnly: true, sameSite: .strict))
            return response
        case .noToken, .wrongToken: return Self.html(Page.login(said: "wrong token"), status: .unauthorized)
        case .limited(let after): return Self.limited(after)
        }
    }

    // MARK: - Answers

    /// The action `word` names; `modality` reads its modality from the form or JSON body.
    private static func action(_ word: String?, request: Request, context: PageContext) async throws -> Box.Action {
        switch word {
        case "mark": return .mark
        case "begin": return .begin
        case "end": return .end
        case "deliver": return .deliver
        case "modality":
            let body = String(buffer: try await request.body.collect(upTo: 4096))
            let fields =
                (try? JSONDecoder().decode([String: String].self, from: Data(body.utf8)))
                ?? (try? URLEncodedFormDecoder().decode([String: String].self, from: body))
            guard let name = fields?["modality"], let modality = Modality(rawValue: name) else {
                throw PageError(status: .badRequest, message: "name a modality: " + Modality.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .modality(modality)
        default: throw PageError(status: .notFound, message: "no such action")
        }
    }

    /// What the page says after an action.
    static func said(_ outcome: Box.Outcome, action: Box.Action) -> String {
        switch (outcome, action) {
        case (.delivering(.started), _): "delivering"
        case (.delivering(.failed(let why)), _): "cannot deliver: \(why)"
        case (.recorded(let report), .mark): "marked in measurement \(report.measurement)"
        case (.recorded(let report), .begin): "ride begun: measurement \(report.measurement)"
        case (.recorded(let report), .end): "ride ended: measurement \(report.measurement)"
        case (.recorded(let report), .modality(let modality)):
            report.outcome == .unchanged ? "\(modality.rawValue) already" : "modality \(modality.rawValue)"
        case (.recorded, .deliver): "delivering"
        }
    }

    /// The HTTP status for a failed action: 409 for what the recorder refused in its state, 503
    /// when no recorder answers, 404 for a measurement that is not there, 500 otherwise.
    static func status(of error: any Error) -> HTTPResponse.Status {
        switch error {
        case is LifecycleError, is ControlFailure: .conflict
        case is RecorderControlError: .serviceUnavailable
        case StoreError.measurementNotFound: .notFound
        default: .internalServerError
        }
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// `value` as `capture … --json` prints it: pretty, keys sorted.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value) + Data("\n".utf8))))
    }

    /// Unix ms on the host clock.
    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    static func limited(_ retryAfter: Int) -> Response {
        Response(
            status: .tooManyRequests, headers: [.retryAfter: String(retryAfter), .contentType: "text/plain"],
            body: .init(byteBuffer: ByteBuffer(string: "too many wrong tokens: try again in \(retryAfter) s\n")))
    }
}

/// A request the page cannot take: its status and one line.
struct PageError: HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

/// `POST /api/deliver`'s answer.
struct DeliveryStarted: Encodable {
    var started: Bool
    var pid: Int32?
    var log: String?
    var error: String?

    init(_ outcome: AutomaticDelivery.Outcome) {
        switch outcome {
        case .started(let pid, let log): (started, self.pid, self.log) = (true, pid, log)
        case .failed(let why): (started, error) = (false, why)
        }
    }
}

/// Lets through requests with the access token (cookie or `Authorization: Bearer`); the login
/// form and `/health` need none. Others get 401 (the login form for a page, JSON for the API) or,
/// after too many wrong tokens from their address, 429.
struct TokenMiddleware: RouterMiddleware {
    typealias Context = PageContext
    let gate: Gate

    func handle(_ request: Request, context: PageContext, next: (Request, PageContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/health" || path == "/login" { return try await next(request, context) }
        var given = request.cookies[PageServer.cookie]?.value
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            given = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        switch gate.decide(given, client: context.client, now: PageServer.now()) {
        case .allowed: return try await next(request, context)
        case .limited(let after): return PageServer.limited(after)
        case .noToken, .wrongToken:
            if path.hasPrefix("/api/") {
                var response = try PageServer.json(["error": "this needs the box's access token"], status: .unauthorized)
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
            var response = PageServer.html(Page.login(), status: .unauthorized)
            if given != nil {
                response.setCookie(Cookie(name: PageServer.cookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
            }
            return response
        }
    }
}

/// Runs blocking work (the store, the control socket) off the server's event loops.
func offLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

extension PageServer {
    /// Serves until SIGTERM or SIGINT (then gracefully: answers under way are finished);
    /// `onRunning` gets the bound port once the server listens.
    ///
    /// The server is Hummingbird's HTTP/1 server and this router, without the once-a-second date
    /// cache its `Application` runs: at rest nothing in the process wakes (the event loops wait in
    /// epoll with no timeout), and each answer's `Date` is made when it is sent.
    ///
    /// - Throws: ``ListenFailure`` when it cannot listen (the port is taken, the address is not
    ///   the box's).
    package func run(host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        let responder = router().buildResponder()
        let logger = self.logger
        do {
            let server = try HTTPServerBuilder.http1().buildServer(
                configuration: ServerConfiguration(address: .hostname(host, port: port), serverName: "capture serve"),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
                responder: { request, writer, channel in
                    var response: Response
                    do {
                        response = try await responder.respond(to: request, context: PageContext(source: .init(channel: channel, logger: logger)))
                    } catch {
                        response = Response(status: .internalServerError)
                    }
                    response.headers[.date] = Self.httpDate()
                    response.headers[.server] = "capture serve"
                    try await writer.write(response: response.head, body: response.body)
                },
                onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) })
            try await ServiceGroup(
                configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            ).run()
        } catch {
            throw ListenFailure(host: host, port: port, reason: "\(error)")
        }
    }

    /// Now as an HTTP date: `Mon, 07 Dec 2026 21:30:00 GMT`.
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The server could not listen, or stopped on an error.
    package struct ListenFailure: Error, KindedError, CustomStringConvertible {
        package var host: String
        package var port: Int
        package var reason: String
        package var faultKind: FaultKind { .unavailable }
        package var description: String { "cannot serve the page on \(host):\(port): \(reason)" }
    }
}
