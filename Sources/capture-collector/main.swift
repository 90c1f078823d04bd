import ArgumentParser
import CaptureCollector
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `capture-collector`: a Cyface collector of our own, to upload to in tests, CI and at home.
@main
struct CaptureCollectorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture-collector",
        abstract: "Receive resumable Cyface uploads (collector API v4) and store them in a directory.",
        discussion: """
            Routes, at the root: POST /measurements (pre-request) and PUT \
            /measurements/(<session>)/ (chunks and status queries), as the Cyface Data \
            Collector serves them behind its /api/v4/ proxy. Every request needs \
            `Authorization: Bearer <token>`: the --token (or --token-file) itself, or a JWT: \
            RS256, not expired, from the issuer and for the audience configured (--jwks with \
            --jwt-issuer, or --issuer). Completed uploads are stored as \
            measurements/<session>.ccyf with their metadata beside them in <session>.json; \
            ranges.log lists every PUT's range and answer.

            ISSUER (for tests and the demo): --issuer also serves a small OAuth 2.0 issuer at \
            /realms/capture (as a Keycloak realm: discovery document, device authorization \
            grant, refresh and client-credentials grants, revocation, JWKS) and accepts its \
            tokens only. Where a person would log in, GET \
            /realms/capture/device?user_code=CODE approves the code (&decision=deny declines). \
            Tokens live --token-lifetime seconds; logins are kept in memory only. Logins follow \
            Keycloak's session rules, with its defaults: without the offline_access scope a \
            login's SSO session ends --sso-session-idle seconds (1800) after its last refresh \
            or --sso-session-max seconds (36000) after the login; with it (granted unless \
            --no-offline-access) an offline session ends --offline-session-idle seconds \
            (2592000, 30 days) after its last refresh and is answered with \
            refresh_expires_in 0. Every refresh answers a new refresh token; with \
            --revoke-refresh-token the one used stops working. Session times are wall-clock \
            time, so faketime moves them.

            With --port 0 the collector picks a free port. The first line on standard output is \
            always the bound port. SIGTERM or SIGINT stops it gracefully.

            FAULTS (for tests): --faults FILE reads a JSON object with any of dropAfterBytes \
            (list of byte counts), serverErrors, expire, omitRange, loseFinal (counts), rate and \
            seed; the flags below set the same. Counted faults hit the next eligible requests; \
            with --fault-rate each PUT also gets a random fault with that probability. "hold" \
            (a list of "pre-request", "308", "201") with "holdDirectory" holds back the next \
            answer of each kind, in order, once acted upon: the collector writes DIR/held and \
            answers when DIR/release appears (a test's moment to act, such as filling a disk).

            LOGGING on standard error: at the default level, info, one line per request once it \
            is answered: method, path, status, measurement (deviceId/measurementId), session and \
            body bytes, e.g. "PUT /measurements/(<session>)/ 308 measurement=<device>/7 \
            session=<session> bytes=1048576". Headers, and so the token, are never logged. \
            --log-level warning keeps it quiet but for problems; debug adds session details.

            LIMITS: a pre-request body over 1 KiB answers 413; an upload over --payload-limit \
            422; a header field or all header fields over --max-header-bytes 400, and the \
            connection is closed; more than --max-sessions open sessions 429 with Retry-After: 30; \
            a connection idle for --idle-timeout seconds is closed. Connections cost no thread: \
            many idle or trickling ones (slowloris) do not stop the others. A chunk PUT to a \
            session another PUT still writes to (one whose client gave up on it, as after a \
            link went down) answers 503 with Retry-After: 5 after 5 s; a status query answers \
            at once with what has arrived.

            EXIT CODES: 0 stopped by a signal, 64 bad arguments, 74 the data directory or \
            faults file cannot be used, 69 the port cannot be bound.
            """)

    @Option(help: "The port to listen on; 0 picks a free one.") var port = 8080
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Where uploads are stored.", valueName: "dir"))
    var dataDirectory: String
    @Option(help: "The bearer token clients must send (visible in ps: prefer --token-file).") var token: String?
    @Option(help: ArgumentHelp("A file holding the bearer token.", valueName: "file")) var tokenFile: String?
    @Option(help: ArgumentHelp("Accept JWTs signed by a key of this JWKS file (with --jwt-issuer).", valueName: "file"))
    var jwks: String?
    @Option(help: ArgumentHelp("The iss the JWTs must carry (with --jwks).", valueName: "url")) var jwtIssuer: String?
    @Flag(help: "Serve an OAuth 2.0 issuer at /realms/capture and accept its tokens.") var issuer = false
    @Option(help: "The aud the JWTs must carry (and the issuer's tokens carry).") var audience = "capture-collector"
    @Option(help: "The issuer's client id.") var clientID = "capture"
    @Option(help: ArgumentHelp("A file holding the issuer client's secret (enables the client-credentials grant).", valueName: "file"))
    var clientSecretFile: String?
    @Option(help: ArgumentHelp("Seconds the issuer's access tokens live.", valueName: "seconds")) var tokenLifetime: Int64 = 300
    @Option(help: ArgumentHelp("The expires_in the issuer states, if not the true lifetime (tests of the 401 path).", valueName: "seconds"))
    var statedTokenLifetime: Int64?
    @Option(help: ArgumentHelp("Seconds the issuer's device codes live.", valueName: "seconds")) var deviceCodeLifetime: Int64 = 600
    @Option(help: ArgumentHelp("Seconds a device must wait between polls.", valueName: "seconds")) var deviceInterval: Int64 = 5
    @Option(help: ArgumentHelp("Answer slow_down to the first N polls of each device code.", valueName: "n")) var slowDown = 0
    @Option(help: ArgumentHelp("Seconds an SSO session lives without a refresh (Keycloak's SSO Session Idle).", valueName: "seconds"))
    var ssoSessionIdle: Int64 = 1800
    @Option(help: ArgumentHelp("Seconds an SSO session lives at most (Keycloak's SSO Session Max).", valueName: "seconds"))
    var ssoSessionMax: Int64 = 36_000
    @Option(help: ArgumentHelp("Seconds an offline session lives without a refresh (Keycloak's Offline Session Idle).", valueName: "seconds"))
    var offlineSessionIdle: Int64 = 2_592_000
    @Flag(inversion: .prefixedNo, help: "Grant the offline_access scope when asked (a new Keycloak realm does).")
    var offlineAccess = true
    @Flag(help: "A refresh token works once (Keycloak's Revoke Refresh Token).") var revokeRefreshToken = false
    @Option(help: "The most upload sessions open at once; a pre-request beyond answers 429 with Retry-After.")
    var maxSessions = 1000
    @Option(help: ArgumentHelp(
        "Close connections idle this long (0: never; a PUT whose client vanished then holds its upload session as long as its connection stays open, possibly for good).",
        valueName: "seconds")) var idleTimeout: Double = 120
    @Option(help: ArgumentHelp("The largest header field and header list read (larger: 400, connection closed).", valueName: "bytes"))
    var maxHeaderBytes = 16 * 1024
    @Option(help: "Forget sessions unused for this many seconds.") var sessionExpiry: Double = 1800
    @Option(help: "The largest upload accepted, in bytes (larger: 422 on the pre-request), as the real collector's measurement.payload.limit.")
    var payloadLimit: Int64 = 104_857_600
    @Flag(name: .customLong("validate"), help: "Decode each upload as a Cyface v3 transfer file; refuse invalid ones with 422.")
    var validateUploads = false
    @Option(help: ArgumentHelp("A JSON fault plan.", valueName: "file")) var faults: String?
    @Option(help: ArgumentHelp("Drop the connection of the next PUT after N body bytes (repeatable).", valueName: "n"))
    var dropAfter: [Int64] = []
    @Option(help: "Answer 500 to the next N PUTs with a body.") var fail500 = 0
    @Option(help: "Answer the next N 308s without Range.") var omitRange = 0
    @Option(help: "Expire the session of the next N PUTs.") var expireSession = 0
    @Option(help: "Store the next N completed uploads but lose the 201.") var loseFinal = 0
    @Option(help: "Answer the next N PUTs 503 with Retry-After, storing nothing.") var unavailable = 0
    @Option(help: ArgumentHelp("The Retry-After of those 503s (default 1).", valueName: "seconds")) var retryAfter: Int?
    @Option(help: "Probability of a random fault per PUT (0…1).") var faultRate = 0.0
    @Option(help: "Seed of the random faults.") var faultSeed: UInt64 = 1
    @Option(help: ArgumentHelp("Receive at most this many bytes per second per upload.", valueName: "bytes"))
    var throttle: Int64?
    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical); info logs every request.")
    var logLevel = LogLevel(.info)

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        // Bounded above too: a duration is made of whole milliseconds in an Int64 (1e300 trapped).
        guard sessionExpiry > 0, sessionExpiry <= 1e9 else { throw ValidationError("--session-expiry must be 0…1e9 seconds, not 0") }
        guard maxSessions > 0, idleTimeout >= 0, idleTimeout <= 1e9, maxHeaderBytes >= 1024 else {
            throw ValidationError("--max-sessions must be positive, --idle-timeout 0…1e9 seconds, --max-header-bytes at least 1024")
        }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1") }
        guard [token != nil, tokenFile != nil, jwks != nil, issuer].filter({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --token, --token-file, --jwks and --issuer")
        }
        guard (jwks == nil) == (jwtIssuer == nil) else { throw ValidationError("--jwks and --jwt-issuer go together") }
        guard tokenLifetime > 0, deviceCodeLifetime > 0, deviceInterval > 0, slowDown >= 0 else {
            throw ValidationError("--token-lifetime, --device-code-lifetime and --device-interval must be positive")
        }
        guard [ssoSessionIdle, ssoSessionMax, offlineSessionIdle].allSatisfy({ (1...3_153_600_000).contains($0) }) else {
            throw ValidationError("--sso-session-idle, --sso-session-max and --offline-session-idle must be 1 s to 100 years")
        }
    }

    func run() async throws {
        // Logs go to standard error: the first line on standard output is the bound port.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "capture-collector")
        logger.logLevel = logLevel.level
        let authentication: CollectorAuthentication
        if let jwks, let jwtIssuer {
            guard let bytes = FileManager.default.contents(atPath: jwks) else { throw Self.fail(74, "cannot read the JWKS file \(jwks)") }
            do {
                authentication = .jwt(
                    try await .jwks(String(decoding: bytes, as: UTF8.self), issuer: jwtIssuer, audience: audience))
            } catch {
                throw Self.fail(64, "\(jwks) is not a JWKS document: \(error)")
            }
        } else if issuer {
            authentication = .token("")  // replaced by the issuer's requirements
        } else {
            authentication = .token(try Self.secret(token, file: tokenFile, what: "token"))
        }
        var configuration = Collector.Configuration(
            dataDirectory: URL(fileURLWithPath: dataDirectory).standardizedFileURL.path, authentication: authentication)
        if issuer {
            var settings = Issuer.Configuration()
            settings.clientID = clientID
            if let clientSecretFile { settings.clientSecret = try Self.secret(nil, file: clientSecretFile, what: "client secret") }
            settings.audience = audience
            settings.tokenLifetime = tokenLifetime
            settings.statedTokenLifetime = statedTokenLifetime
            settings.deviceCodeLifetime = deviceCodeLifetime
            settings.interval = deviceInterval
            settings.slowDownPolls = slowDown
            settings.ssoSessionIdle = ssoSessionIdle
            settings.ssoSessionMax = ssoSessionMax
            settings.offlineSessionIdle = offlineSessionIdle
            settings.offlineAccess = offlineAccess
            settings.revokeRefreshToken = revokeRefreshToken
            configuration.issuer = settings
        }
        configuration.sessionExpiry = .milliseconds(Int64(sessionExpiry * 1000))
        configuration.payloadLimit = payloadLimit
        configuration.maxSessions = maxSessions
        configuration.idleTimeout = idleTimeout > 0 ? .milliseconds(Int64(idleTimeout * 1000)) : nil
        configuration.maxHeaderBytes = maxHeaderBytes
        configuration.validate = validateUploads
        configuration.throttle = throttle
        var plan = FaultPlan.Configuration()
        if let faults {
            do {
                plan = try JSONDecoder().decode(FaultPlan.Configuration.self, from: Data(contentsOf: URL(fileURLWithPath: faults)))
            } catch {
                throw Self.fail(74, "cannot read the fault plan \(faults): \(error)")
            }
        }
        plan.dropAfterBytes += dropAfter
        plan.serverErrors += fail500
        plan.omitRange += omitRange
        plan.expire += expireSession
        plan.loseFinal += loseFinal
        plan.unavailable += unavailable
        if let retryAfter { plan.retryAfter = retryAfter }
        if faultRate > 0 {
            plan.rate = faultRate
            plan.seed = faultSeed
        }
        configuration.faults = plan
        let collector: Collector
        do {
            collector = try await Collector(configuration, logger: logger)
        } catch {
            throw Self.fail(74, "cannot use the data directory \(dataDirectory): \(error)")
        }
        let app = collector.application(host: host, port: port) { bound in
            // Unbuffered, so that a test reading the first line sees it at once.
            FileHandle.standardOutput.write(Data("\(bound)\n".utf8))
        }
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            throw Self.fail(69, "cannot serve on \(host):\(port): \(error)")
        }
    }

    /// A secret given as an option or read from a file (trimmed); exit 74 or 64 if unusable.
    private static func secret(_ given: String?, file: String?, what: String) throws -> String {
        var secret = given ?? ""
        if let file {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw Self.fail(74, "cannot read the \(what) file \(file)")
            }
            secret = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard !secret.isEmpty else { throw Self.fail(64, "the \(what) is empty") }
        return secret
    }

    private static func fail(_ code: Int32, _ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("capture-collector: \(message)\n".utf8))
        return ExitCode(code)
    }
}

/// A `--log-level` value: a swift-log level by its name.
struct LogLevel: ExpressibleByArgument {
    let level: Logger.Level

    init(_ level: Logger.Level) { self.level = level }

    init?(argument: String) {
        guard let level = Logger.Level(rawValue: argument) else { return nil }
        self.level = level
    }

    static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }
    var defaultValueDescription: String { level.rawValue }
}
