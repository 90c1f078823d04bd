import CaptureCore
import CaptureTransfer
public import CaptureStorage
import AsyncHTTPClient
import Foundation
import Glibc
import NIOCore

/// One pass of the delivery policy (`capture sync`, what the timer and a finished recording
/// run): decide whether to deliver now, check that the collector answers at all, then upload
/// every waiting measurement through ``UploadRun`` and remember the outcome, with a backoff
/// that persists between runs so a collector that is down is not hammered by the timer.
public enum Delivery {
    /// What a pass decided before sending anything.
    public enum Decision: Sendable, Equatable {
        /// Deliver; the reason says which rule fired (`--now`, enough waiting, the oldest too old).
        case deliver(reason: String)
        /// Nothing waits.
        case nothingWaiting
        /// Measurements wait, but the policy says not yet.
        case notYet(reason: String)
        /// Earlier passes failed; the next may try at this Unix ms time.
        case backingOff(until: Int64)
    }

    /// Applies `policy` to what waits: at least `minWaiting` measurements, or the oldest stopped
    /// longer than `maxAge` ago; `force` (`--now`) delivers whatever waits, backoff or not.
    public static func decide(
        totals: DeliveryTotals, state: DeliveryState, policy: DeliveryPolicy, now: Int64, force: Bool
    ) -> Decision {
        guard totals.waiting > 0 else { return .nothingWaiting }
        if force { return .deliver(reason: "--now") }
        // A backoff further ahead than the longest wait was set by a clock that was ahead (a box
        // without a real-time clock boots off by hours or days): it says nothing now.
        if let next = state.nextAttemptAt, next > now, next - now <= longestWait { return .backingOff(until: next) }
        if totals.waiting >= policy.minWaiting {
            return .deliver(reason: "\(totals.waiting) waiting, at least \(policy.minWaiting)")
        }
        let maxAge = Int64(policy.maxAge.seconds * 1000)
        if let since = totals.oldestWaitingSince, now - since > maxAge {
            return .deliver(reason: "the oldest has waited longer than \(policy.maxAge)")
        }
        return .notYet(reason: "\(totals.waiting) waiting, fewer than \(policy.minWaiting), the oldest for less than \(policy.maxAge)")
    }

    /// When a pass after `failures` failed ones in a row may try again: one minute, doubling per
    /// failure up to six hours, each wait ±20 % at random so that devices that failed together
    /// do not all come back at once.
    public static func nextAttempt(afterFailures failures: Int, now: Int64, random: Double = Double.random(in: 0..<1))
        -> Int64
    {
        let base = 60_000.0 * pow(2, Double(max(0, min(failures, 20) - 1)))
        let wait = min(base, 6 * 3_600_000.0) * (0.8 + 0.4 * random)
        return now + Int64(wait)
    }

    /// The longest wait ``nextAttempt(afterFailures:now:random:)`` sets, ms: six hours and 20 %.
    /// A stored next attempt further ahead than this was set by a clock that has since gone
    /// back, and is not waited for.
    public static let longestWait: Int64 = 6 * 3_600_000 * 6 / 5

    /// The wall clock in Unix milliseconds, as the delivery state stores times.
    public static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Whether the collector answers HTTP at all (any status), within `timeout` seconds: a GET
    /// of its base URL, without the token. `nil` when it answers, else why not, as a
    /// ``ConnectionProblem`` words it (`connection refused (127.0.0.1:1)`).
    public static func probe(_ url: String, timeout: Int64 = 5) async -> String? {
        do {
            try await withProbeClient { client in
                var request = HTTPClientRequest(url: url)
                request.method = .GET
                let response = try await client.execute(request, timeout: .seconds(timeout))
                _ = try? await response.body.collect(upTo: 64 * 1024)
            }
            return nil
        } catch {
            return ConnectionProblem(error, url: url).description
        }
    }

    /// Runs `body` with the probes' client: one that fails a request at the first failed
    /// connection (the shared client retries connecting until the deadline, then reports the
    /// last error only). One client for the process, as `HTTPClient.shared` is, so that the
    /// token probe reuses the reachability probe's connection.
    static func withProbeClient<T: Sendable>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        try await body(probeClient)
    }

    /// Never shut down: it lives as long as the process, like `HTTPClient.shared`.
    private static let probeClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}

extension Delivery {
    /// What the collector says to the token, without uploading anything.
    public enum TokenVerdict: Sendable, Equatable {
        /// It passed the collector's authentication (any answer but 401).
        case accepted(status: Int)
        /// 401: the collector refused it.
        case refused
        /// No answer; why.
        case unreachable(String)
    }

    /// Asks the collector whether it takes `token`: a status query (an empty PUT with
    /// `Content-Range: bytes */1`) for a session that does not exist. The collector checks the
    /// token before it looks up the session (cyface-protocol.md §2.5, step 1), so a 401 means
    /// the token is refused and anything else (404 for the unknown session, 422) that it passed.
    /// Nothing is created or stored.
    public static func tokenProbe(_ url: String, token: BearerToken, timeout: Int64 = 5) async -> TokenVerdict {
        let base = url.hasSuffix("/") ? url : url + "/"
        var request = HTTPClientRequest(url: base + "measurements/capture-doctor-probe")
        request.method = .PUT
        request.headers.replaceOrAdd(name: "Authorization", value: token.authorization)
        request.headers.replaceOrAdd(name: "Content-Type", value: CollectorProtocol.binaryContentType)
        request.headers.replaceOrAdd(name: "Content-Range", value: "bytes */1")
        request.headers.replaceOrAdd(name: "Content-Length", value: "0")
        do {
            let status = try await withProbeClient { client in
                let response = try await client.execute(request, timeout: .seconds(timeout))
                _ = try? await response.body.collect(upTo: 64 * 1024)
                return Int(response.status.code)
            }
            return status == 401 ? .refused : .accepted(status: status)
        } catch {
            return .unreachable(ConnectionProblem(error, url: base).description)
        }
    }
}

/// Whether the connection is metered, as NetworkManager sees it (its `Metered` property over
/// D-Bus, read with `busctl`). Where NetworkManager (or D-Bus, or busctl) is absent the answer
/// is unknown, and `upload.unmetered_only` lets the pass go on: a device without NetworkManager
/// has no way to say, and holding every ride back for ever would be worse.
public enum Metering: String, Sendable, Equatable, Codable {
    case metered, unmetered, unknown

    /// Asks NetworkManager through `busctl` (systemd's D-Bus tool).
    public static func current(busctl: String = "/usr/bin/busctl") -> Metering {
        guard FileManager.default.isExecutableFile(atPath: busctl) else { return .unknown }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: busctl)
        process.arguments = [
            "--system", "get-property", "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
            "org.freedesktop.NetworkManager", "Metered",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .unknown }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return .unknown }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// `u 1` (yes) or `u 3` (guessed yes) is metered, `u 2` or `u 4` not; NMMetered's values.
    public static func parse(_ busctlOutput: String) -> Metering {
        switch busctlOutput.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "u 1", "u 3": .metered
        case "u 2", "u 4": .unmetered
        default: .unknown
        }
    }
}

/// The lock an uploader (`capture upload`, `capture sync`) holds on `upload.lock` in the data
/// directory: one at a time per data directory, so two never send the same measurement.
public struct UploaderLock: ~Copyable {
    private let lock: ExclusiveFileLock

    /// Takes the lock, or returns `nil` if another process holds it.
    public init?(directory: String) {
        try? PrivateFiles.createDirectory(directory)
        guard let lock = ExclusiveFileLock(path: directory + "/upload.lock") else { return nil }
        self.lock = lock
    }

    /// Runs `body` holding the lock of `directory`; `nil` (and `body` not run) if another
    /// process holds it.
    public static func whileHeld<T>(directory: String, _ body: () async throws -> T) async rethrows -> T? {
        guard let lock = UploaderLock(directory: directory) else { return nil }
        do {
            let value = try await body()
            _ = consume lock
            return value
        } catch {
            _ = consume lock
            throw error
        }
    }
}
