import CaptureCore
import CaptureTransfer
import HTTPTypes
import Hummingbird
import Logging

/// Logs one line per request at info level, once it is answered:
///
///     PUT /measurements/(3f…)/ 308 measurement=0b3c…/7 session=3f… bytes=1048576
///
/// the method, the path, the status, the measurement (`deviceId/measurementId`, from a PUT's
/// headers or, for a pre-request, from the session it opened; `-` when unknown), the session
/// and the request's body bytes (its `Content-Length`). Headers are never logged, so neither is
/// the bearer token; values from the client are cut to 100 characters and control characters
/// are replaced, so a line stays one line. An error a handler throws is logged with its status
/// (500 for any other error) and passed on.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let logger: Logger
    let sessions: CollectorSessions

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            log(request, status: response.status, location: response.headers[.location])
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError)?.status ?? .internalServerError, location: nil)
            throw error
        }
    }

    private static let deviceID = HTTPField.Name("deviceId")!
    private static let measurementID = HTTPField.Name("measurementId")!

    private func log(_ request: Request, status: HTTPResponse.Status, location: String?) {
        guard logger.logLevel <= .info else { return }
        let session = Self.session(in: request.uri.path) ?? location.flatMap(Self.session(in:))
        var measurement: String?
        if let device = request.headers[Self.deviceID], let id = request.headers[Self.measurementID] {
            measurement = device + "/" + id
        } else if let session, let metadata = sessions.metadata(of: session) {
            measurement = "\(metadata.deviceID)/\(metadata.measurementID)"
        }
        let bytes = request.headers[.contentLength] ?? "0"
        logger.info(
            """
            \(request.method.rawValue) \(Self.clean(request.uri.path)) \(status.code) \
            measurement=\(Self.clean(measurement ?? "-")) session=\(session ?? "-") bytes=\(Self.clean(bytes))
            """)
    }

    /// The session id in `/measurements/(<sid>)/` or `/measurements/<device>/<measurement>/attachments/(<sid>)/`
    /// (a path or a Location URL), if it is one.
    static func session(in text: String) -> String? {
        guard text.contains("/measurements/"), let open = text.range(of: "/("), let close = text[open.upperBound...].firstIndex(of: ")") else {
            return nil
        }
        let sid = text[open.upperBound..<close]
        return CollectorProtocol.isSessionID(sid) ? String(sid) : nil
    }

    /// A client's value as one harmless piece of a log line.
    static func clean(_ text: String) -> String {
        let question: Unicode.Scalar = "?"
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(100) {
            scalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? question : scalar)
        }
        return String(scalars)
    }
}
