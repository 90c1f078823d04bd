public import CaptureCore
public import CaptureStorage
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `fleet.*`: where and how often a box pushes its heartbeat (docs/fleet.md).
public struct FleetSettings: Sendable, Equatable {
    /// The Pushgateway's base URL; nil: no heartbeat.
    public var pushURL: String?
    /// How often the heartbeat is pushed.
    public var interval: TimeSpan
    /// Basic authentication: the user and the file holding the password.
    public var username: String?
    public var passwordFile: String?
    /// A bearer token's file, instead.
    public var tokenFile: String?

    /// No heartbeat.
    public static let standard = FleetSettings(pushURL: nil, interval: TimeSpan(seconds: 300)!)

    public init(pushURL: String?, interval: TimeSpan, username: String? = nil, passwordFile: String? = nil, tokenFile: String? = nil) {
        self.pushURL = pushURL
        self.interval = interval
        self.username = username
        self.passwordFile = passwordFile
        self.tokenFile = tokenFile
    }

    /// The settings `fleet.*` sets (`settings` scoped to `fleet`): a user needs its password
    /// file, and one way to authenticate at most.
    public init(reading settings: some SettingsReader) throws(SettingsError) {
        self.init(
            pushURL: try settings.text("push_url"), interval: try settings.duration("interval"), username: try settings.text("username"),
            passwordFile: try settings.text("password_file"), tokenFile: try settings.text("token_file"))
        if username != nil, passwordFile == nil { throw settings.invalid("username", found: "a user without fleet.password_file") }
        if passwordFile != nil, username == nil { throw settings.invalid("password_file", found: "a password without fleet.username") }
        if tokenFile != nil, username != nil { throw settings.invalid("token_file", found: "a token beside fleet.username: one of them") }
    }
}

/// A box's heartbeat for the fleet: `capture metrics`' figures and what says the box is alive,
/// pushed to a Prometheus Pushgateway under `/metrics/job/capture/instance/<device id>`, one
/// series set per box (a push replaces the last). The families' help lines are left out of the
/// push (the scraper's metadata needs none): a push is about 1.5 KiB.
public enum Heartbeat {
    /// What a heartbeat says of the board beside the store's figures.
    public struct Board: Sendable, Equatable {
        /// Under-voltage now, and at any time since boot (a Raspberry Pi's; false where the
        /// board does not say).
        public var underVoltageNow = false
        public var underVoltageSinceBoot = false
        /// Whether the kernel says the clock is synchronised, and its estimate of the clock's
        /// error, seconds (nil: not known).
        public var clockSynchronized: Bool?
        public var clockEstimatedError: Double?
        /// GNSS time minus the host clock, seconds, as the running recorder's receiver sees it
        /// (nil: no recorder, or no fix yet).
        public var gnssOffset: Double?
        /// How long the running recorder's last flushes took to be durable (nil: none).
        public var flushes: StorageLatency?

        public init() {}
    }

    /// The heartbeat of `metrics` (``DeliveryMetrics/text(of:now:login:waitingForRoom:)``)
    /// at `now` (Unix ms): with when it was made, how often one comes, the store's budget
    /// (`retention.max_store_size`, nil: none), what the board says (``Board``), the recorder's
    /// state and the software's version. A figure not known is left out rather than sent as 0.
    public static func text(
        metrics: String, now: Int64, interval: TimeSpan, storeBudget: Int64?, board: Board = Board(), state: String,
        version: String
    ) -> String {
        let escaped = { (text: String) in
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
        }
        var lines = metrics.split(separator: "\n").filter { !$0.hasPrefix("# HELP") }.map(String.init)
        func gauge(_ name: String, _ value: Double?) {
            guard let value else { return }
            lines += ["# TYPE \(name) gauge", "\(name) \(value)"]
        }
        func flag(_ value: Bool?) -> Double? { value.map { $0 ? 1 : 0 } }
        gauge("capture_heartbeat_timestamp_seconds", Double(now) / 1000)
        gauge("capture_heartbeat_interval_seconds", interval.seconds)
        lines += ["# TYPE capture_store_budget_bytes gauge", "capture_store_budget_bytes \(storeBudget ?? 0)"]
        lines += ["# TYPE capture_under_voltage_now gauge", "capture_under_voltage_now \(board.underVoltageNow ? 1 : 0)"]
        lines += ["# TYPE capture_under_voltage_since_boot gauge", "capture_under_voltage_since_boot \(board.underVoltageSinceBoot ? 1 : 0)"]
        gauge("capture_clock_synchronized", flag(board.clockSynchronized))
        gauge("capture_clock_estimated_error_seconds", board.clockEstimatedError)
        gauge("capture_clock_gnss_offset_seconds", board.gnssOffset)
        gauge("capture_flush_p99_seconds", board.flushes.map { $0.p99Milliseconds / 1000 })
        gauge("capture_flush_max_seconds", board.flushes.map { $0.maxMilliseconds / 1000 })
        lines += ["# TYPE capture_info gauge", "capture_info{version=\"\(escaped(version))\",state=\"\(escaped(state))\"} 1"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The file in the data directory holding when the last heartbeat went out (Unix ms).
    public static let fileName = "heartbeat.last"

    /// Whether a heartbeat is due at `now` (Unix ms) in `directory`: none went out yet, or the
    /// last at least `interval` ago. A box that was offline pushes once when it is back: only
    /// the last push is kept, never a backlog.
    public static func isDue(directory: String, interval: TimeSpan, now: Int64) -> Bool {
        let text = try? String(contentsOfFile: directory + "/" + fileName, encoding: .utf8)
        guard let last = text.flatMap({ Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else { return true }
        return now - last >= Int64(interval.seconds * 1000) || last > now
    }

    /// Notes that a heartbeat went out at `now` (best effort: a note that cannot be written
    /// only makes the next one come early).
    public static func pushed(directory: String, at now: Int64) {
        guard let file = try? AtomicFile(path: directory + "/" + fileName) else { return }
        do {
            try file.append(Array("\(now)\n".utf8))
            try file.commit()
        } catch {
            file.discard()
        }
    }

    /// Where the heartbeat of `device` goes under `base`.
    public static func url(base: String, device: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/metrics/job/capture/instance/" + device
    }

    /// Pushes `text` for `device` (a PUT: it replaces the box's last push), authenticated as
    /// `settings` say, within `timeout` seconds. Redirects are not followed, as for the collector.
    public static func push(_ text: String, device: String, settings: FleetSettings, timeout: Int64 = 10) async throws(HeartbeatError) {
        guard let base = settings.pushURL else { return }
        let url = Self.url(base: base, device: device)
        var request = HTTPClientRequest(url: url)
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "text/plain; version=0.0.4")
        request.headers.add(name: "User-Agent", value: "capture")
        if let authorization = try authorization(settings) { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(string: text))
        let status: UInt
        do {
            // The probes' client: redirects refused, a failed connection fails at once.
            status = try await Delivery.withProbeClient { client in
                let response = try await client.execute(request, timeout: .seconds(timeout))
                _ = try? await response.body.collect(upTo: 64 * 1024)
                return response.status.code
            }
        } catch {
            throw .unreachable(url: url, reason: ConnectionProblem(error, url: url).description)
        }
        guard (200..<300).contains(status) else { throw .refused(url: url, status: Int(status)) }
    }

    /// The `Authorization` header `settings` ask for: basic (`username`, `passwordFile`) or
    /// bearer (`tokenFile`); the secrets' files are read as the collector's token file is.
    static func authorization(_ settings: FleetSettings) throws(HeartbeatError) -> String? {
        do {
            if let tokenFile = settings.tokenFile { return try TokenFile.read(tokenFile).authorization }
            guard let username = settings.username, let passwordFile = settings.passwordFile else { return nil }
            let password = try TokenFile.read(passwordFile).secret
            return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        } catch {
            throw .credentials(error)
        }
    }
}

/// Why a heartbeat was not pushed.
public enum HeartbeatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer from the Pushgateway.
    case unreachable(url: String, reason: String)
    /// It answered with a status other than 2xx.
    case refused(url: String, status: Int)
    /// The password or token file could not be used.
    case credentials(TokenFileError)

    public var description: String {
        switch self {
        case .unreachable(let url, let reason): "the Pushgateway at \(url) did not answer: \(reason)"
        case .refused(let url, let status): "the Pushgateway at \(url) refused the heartbeat (HTTP \(status))"
        case .credentials(let error): "\(error)"
        }
    }
}
