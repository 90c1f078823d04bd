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
            `Authorization: Bearer <token>`. Completed uploads are stored as \
            measurements/<session>.ccyf with their metadata beside them in <session>.json; \
            ranges.log lists every PUT's range and answer.

            With --port 0 the collector picks a free port. The first line on standard output is \
            always the bound port. SIGTERM or SIGINT stops it gracefully.

            FAULTS (for tests): --faults FILE reads a JSON object with any of dropAfterBytes \
            (list of byte counts), serverErrors, expire, omitRange, loseFinal (counts), rate and \
            seed; the flags below set the same. Counted faults hit the next eligible requests; \
            with --fault-rate each PUT also gets a random fault with that probability.

            LOGGING on standard error: at the default level, info, one line per request once it \
            is answered: method, path, status, measurement (deviceId/measurementId), session and \
            body bytes, e.g. "PUT /measurements/(<session>)/ 308 measurement=<device>/7 \
            session=<session> bytes=1048576". Headers, and so the token, are never logged. \
            --log-level warning keeps it quiet but for problems; debug adds session details.

            EXIT CODES: 0 stopped by a signal, 64 bad arguments, 74 the data directory or \
            faults file cannot be used, 69 the port cannot be bound.
            """)

    @Option(help: "The port to listen on; 0 picks a free one.") var port = 8080
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Where uploads are stored.", valueName: "dir"))
    var dataDirectory: String
    @Option(help: "The bearer token clients must send (visible in ps: prefer --token-file).") var token: String?
    @Option(help: ArgumentHelp("A file holding the bearer token.", valueName: "file")) var tokenFile: String?
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
        guard sessionExpiry > 0 else { throw ValidationError("--session-expiry must be positive") }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1") }
        guard (token == nil) != (tokenFile == nil) else { throw ValidationError("give exactly one of --token and --token-file") }
    }

    func run() async throws {
        // Logs go to standard error: the first line on standard output is the bound port.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "capture-collector")
        logger.logLevel = logLevel.level
        var secret = token ?? ""
        if let tokenFile {
            guard let bytes = FileManager.default.contents(atPath: tokenFile) else {
                throw Self.fail(74, "cannot read the token file \(tokenFile)")
            }
            secret = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard !secret.isEmpty else { throw Self.fail(64, "the token is empty") }
        var configuration = Collector.Configuration(
            dataDirectory: URL(fileURLWithPath: dataDirectory).standardizedFileURL.path, token: secret)
        configuration.sessionExpiry = .milliseconds(Int64(sessionExpiry * 1000))
        configuration.payloadLimit = payloadLimit
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
            collector = try Collector(configuration, logger: logger)
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
