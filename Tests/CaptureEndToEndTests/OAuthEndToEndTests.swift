import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A device configured for a collector that serves its own OAuth 2.0 issuer
/// (`capture-collector --issuer`): `auth.issuer` and `auth.client_id` in its config file, no token
/// file. Commands run with only PATH, HOME and CAPTURE_CONFIG in their environment.
final class IssuerDevice {
    let collector: CollectorProcess
    let root: String
    var data: String { root + "/data" }
    var config: String { root + "/config.yaml" }
    var loginFile: String { data + "/login.json" }
    let extraEnvironment: [String]
    var issuer: String { "http://127.0.0.1:\(collector.port)/realms/capture" }

    /// - Parameters:
    ///   - collectorArguments: more options for `capture-collector --issuer`.
    ///   - auth: more lines of the config file's `auth` mapping.
    ///   - environment: `NAME=VALUE`s the collector and every command run with (libfaketime's).
    ///   - root: the device's folder (its data directory is `data` in it); a new one by default.
    init(_ collectorArguments: [String] = [], auth: [String] = [], environment: [String] = [], root: String? = nil) throws {
        collector = try CollectorProcess(
            collectorArguments, authentication: ["--issuer", "--device-interval", "1"], environment: environment)
        extraEnvironment = environment
        self.root = root ?? FileManager.default.temporaryDirectory.appendingPathComponent("capture-oauth-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.root, withIntermediateDirectories: true)
        let lines = [
            "data_dir: \(data)", "collector:", "  url: \"\(collector.url)\"", "  retry_budget: 30s", "auth:",
            "  issuer: \"\(issuer)\"", "  client_id: capture",
        ] + auth.map { "  " + $0 }
        try (lines.joined(separator: "\n") + "\n").write(toFile: config, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    private var environment: [String] {
        ["-i", "PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")", "HOME=\(root)", "CAPTURE_CONFIG=\(config)"]
            + extraEnvironment
    }

    /// `sh -c 'exec "$@"' sh`: what runs a command under libfaketime. Its constructor sets
    /// FAKETIME_SHARED in the environment of the first process it is loaded into, which moves
    /// `environ`; a Swift program finds its arguments next to `environ` and then sees none. In
    /// the shell that happens harmlessly, and the program exec'd from it inherits the setting.
    static let shell = ["/bin/sh", "-c", "exec \"$@\"", "sh"]

    /// The command line of `capture ARGS` for env(1).
    private func command(_ arguments: [String]) -> [String] {
        environment + (extraEnvironment.isEmpty ? [] : Self.shell) + [CLI.executable] + arguments
    }

    /// Runs `capture ARGS` and waits.
    func run(_ arguments: [String]) throws -> Program.Result {
        try Program.run("/usr/bin/env", command(arguments))
    }

    /// Starts `capture ARGS` in the background.
    func start(_ arguments: [String]) throws -> Subprocess {
        try Subprocess(command(arguments), bytes: [], executable: "/usr/bin/env")
    }

    /// Runs `capture login --json`, playing the person: after `delay` seconds opens the
    /// verification URL with `decision` (approve or deny), or never with nil.
    func login(_ decision: String? = "approve", delay: Double = 0, extra: [String] = []) throws -> (status: Int32, lines: [String], stderr: String) {
        let child = try start(["login", "--json"] + extra)
        var first: [String: Any]?
        for _ in 0..<200 where first == nil {
            first = child.stdout.split(separator: "\n").first.flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            if first == nil { usleep(50_000) }
        }
        #expect(first?["user_code"] is String, "\(child.output)")
        if let decision, let url = first?["verification_uri_complete"] as? String, let curl = Program.require("curl", package: "curl") {
            usleep(useconds_t(delay * 1_000_000))
            let answer = try Program.run(curl, ["-sf", url + (decision == "deny" ? "&decision=deny" : "")])
            #expect(answer.status == 0, "\(answer.stderr)")
        }
        let status = child.wait()
        return (status, child.stdout.split(separator: "\n").map(String.init), child.stderr)
    }

    /// Replays a short ride; its id.
    func replay(fixes: Int = 5) throws -> Int64 {
        let trace = root + "/ride.trace"
        try shortTrace(fixes: fixes).write(toFile: trace, atomically: true, encoding: .utf8)
        let result = try run(["replay", trace])
        #expect(result.status == 0, "\(result.stderr)")
        return Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A file of `size` random bytes, standing in for a transfer file (the transport does not look inside).
    func randomFile(_ size: Int) throws -> String {
        let path = root + "/payload-\(size).bin"
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        FileManager.default.createFile(atPath: path, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? out.close() }
        var left = size
        while left > 0 {
            let piece = try random.read(upToCount: min(left, 4 << 20)) ?? Data()
            try out.write(contentsOf: piece)
            left -= piece.count
        }
        return path
    }

    /// Access tokens the issuer handed out, from the collector's request log.
    var tokensIssued: Int {
        collector.process.stderr.split(separator: "\n").filter { $0.contains("POST /realms/capture/protocol/openid-connect/token 200") }.count
    }

    /// The upload state `capture show` reports.
    func uploadState(_ id: Int64) throws -> [String: Any] {
        let result = try run(["show", String(id), "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["upload"] as? [String: Any] ?? [:]
    }

    /// Bytes the collector took in PUT bodies (every range of ranges.log but status queries).
    var bytesReceived: Int64 {
        collector.ranges.compactMap { line -> Int64? in
            let fields = line.split(separator: " ")
            guard fields.count >= 2, !fields[1].hasPrefix("*"), let range = fields[1].split(separator: "/").first else { return nil }
            let ends = range.split(separator: "-").compactMap { Int64($0) }
            return ends.count == 2 ? ends[1] - ends[0] + 1 : nil
        }.reduce(0, +)
    }
}

@Suite(.serialized) struct OAuthEndToEndTests {
    @Test func deviceLoginWaitsForTheApprovalAndKeepsTheRefreshTokenPrivate() throws {
        let device = try IssuerDevice()
        let login = try device.login("approve", delay: 1.5)
        #expect(login.status == 0, "\(login)")
        let last = try JSONSerialization.jsonObject(with: Data((login.lines.last ?? "").utf8)) as? [String: Any]
        #expect(last?["logged_in"] as? Bool == true)
        #expect(last?["login_file"] as? String == device.loginFile)
        // Polled while pending: at least two polls of the token endpoint for one grant.
        let polls = device.collector.process.stderr.split(separator: "\n").filter { $0.contains("openid-connect/token ") }
        #expect(polls.count >= 2, "\(polls)")
        var info = stat()
        #expect(stat(device.loginFile, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device.loginFile))) as? [String: Any]
        let refresh = try #require(stored?["refresh_token"] as? String)
        #expect(!login.lines.joined().contains(refresh) && !login.stderr.contains(refresh))

        // The login is all an upload needs; nothing secret reaches the logs, even at debug level.
        let id = try device.replay()
        let upload = try device.run(["upload", String(id), "-vv"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try device.collector.stored().count == 1)
        #expect(!upload.stdout.contains(refresh) && !upload.stderr.contains(refresh))
        #expect(!upload.stderr.contains("eyJ"), "a JWT in the log: \(upload.stderr)")
    }

    @Test func slowDownAddsFiveSecondsToEveryLaterPoll() throws {
        let device = try IssuerDevice(["--slow-down", "1"])
        let began = Date()
        let login = try device.login("approve", extra: ["-v"])
        #expect(login.status == 0, "\(login)")
        // The first poll waits 1 s and is told to slow down; the next waits 1 + 5 s.
        #expect(Date().timeIntervalSince(began) >= 6)
        #expect(login.stderr.contains("poll less often: every 6 s"), "\(login.stderr)")
    }

    @Test func aDeclinedLoginEndsWith77AndKeepsNothing() throws {
        let device = try IssuerDevice()
        let login = try device.login("deny")
        #expect(login.status == 77)
        #expect(login.stderr.contains("declined"), "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: device.loginFile))
    }

    @Test func anExpiredCodeEndsWith77() throws {
        let device = try IssuerDevice(["--device-code-lifetime", "3"])
        let login = try device.login(nil)
        #expect(login.status == 77)
        #expect(login.stderr.contains("expired"), "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: device.loginFile))
    }

    @Test func withoutALoginUploadSaysToLogIn() throws {
        let device = try IssuerDevice()
        let id = try device.replay()
        let upload = try device.run(["upload", String(id)])
        #expect(upload.status == 77)
        #expect(upload.stderr.contains("run `capture login`"), "\(upload.stderr)")
        #expect(try device.collector.stored().isEmpty)
    }

    /// Issue 12.6: 200 MB through a throttled collector with 3-second tokens: the token is
    /// renewed several times while the upload goes on, and no byte is sent twice.
    @Test func aLongUploadOutlivesManyThreeSecondTokens() throws {
        let size = 200_000_000
        let device = try IssuerDevice(["--token-lifetime", "3", "--throttle", "40000000", "--payload-limit", "300000000"])
        #expect(try device.login().status == 0)
        let id = try device.replay()
        let file = try device.randomFile(size)
        let before = device.tokensIssued
        let upload = try device.run([
            "upload", String(id), "--transfer-file", file, "--chunk-size", "8000000", "--payload-limit", "300M",
        ])
        #expect(upload.status == 0, "\(upload.stderr)")
        let stored = try device.collector.stored()
        #expect(stored.count == 1)
        #expect(stored.first?.bytes == (try Data(contentsOf: URL(fileURLWithPath: file))))
        // At 40 MB/s the upload takes at least 5 s: at least two renewals beyond the first token.
        #expect(device.tokensIssued - before >= 3, "\(device.tokensIssued - before) tokens")
        #expect(device.bytesReceived == Int64(size), "\(device.collector.ranges)")
        #expect(!device.collector.process.stderr.contains(" 401 "), "a token expired in use")
    }

    /// A token the collector refuses although the issuer said it was good (clock skew): one
    /// renewal per 401, then the upload goes on from the collector's offset.
    @Test func a401RenewsTheTokenAndTheUploadContinuesFromTheOffset() throws {
        let size = 12_000_000
        let chunk = 1_000_000
        let device = try IssuerDevice(["--token-lifetime", "1", "--stated-token-lifetime", "600", "--throttle", "4000000"])
        #expect(try device.login().status == 0)
        let id = try device.replay()
        let file = try device.randomFile(size)
        let upload = try device.run(["upload", String(id), "--transfer-file", file, "--chunk-size", String(chunk), "-v"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try device.collector.stored().first?.bytes == (try Data(contentsOf: URL(fileURLWithPath: file))))
        let refusals = device.collector.process.stderr.split(separator: "\n").filter { $0.contains(" 401 ") }.count
        #expect(refusals >= 2, "the tokens should have expired in use")
        #expect(upload.stderr.contains("renewing it"))
        // A refused PUT stores nothing; every accepted byte arrived once.
        #expect(device.bytesReceived == Int64(size), "\(device.collector.ranges)")
    }

    /// A refresh token revoked in the middle of an upload: exit 77 with "run `capture login`",
    /// the session kept; after a new login `--resume` finishes it from the collector's offset.
    @Test func aRevokedRefreshTokenEndsWith77AndTheSessionIsResumedAfterLogin() throws {
        let size = 24_000_000
        let device = try IssuerDevice(["--token-lifetime", "2", "--throttle", "4000000"])
        #expect(try device.login().status == 0)
        let id = try device.replay()
        let file = try device.randomFile(size)
        let upload = try device.start(["upload", String(id), "--transfer-file", file, "--chunk-size", "1000000"])
        #expect(CLI().waitFor(20) { device.collector.partialBytes > 2_000_000 })
        // What `capture logout` would do at the issuer, behind the uploader's back.
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device.loginFile))) as? [String: Any]
        let refresh = try #require(stored?["refresh_token"] as? String)
        let curl = try #require(Program.require("curl", package: "curl"))
        let revoked = try Program.run(curl, ["-sf", "-d", "client_id=capture", "--data-urlencode", "token@-", device.issuer + "/protocol/openid-connect/revoke"], input: Array(refresh.utf8))
        #expect(revoked.status == 0)
        #expect(upload.wait() == 77, "\(upload.output)")
        #expect(upload.stderr.contains("run `capture login`"), "\(upload.stderr)")
        let state = try device.uploadState(id)
        #expect(state["status"] as? String == "uploading", "\(state)")
        let received = device.collector.partialBytes
        #expect(received > 0 && received < size)

        #expect(try device.login().status == 0)
        let resumed = try device.run(["upload", String(id), "--resume", "--transfer-file", file, "--chunk-size", "1000000"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try device.collector.stored().first?.bytes == (try Data(contentsOf: URL(fileURLWithPath: file))))
        // The resume asked where the upload stood and sent at most one chunk again.
        #expect(device.bytesReceived <= Int64(size + 1_000_000), "\(device.collector.ranges)")
    }

    /// An `expires_in` of Int64.max (a broken issuer) is taken as a day, not a crash.
    @Test func anAbsurdTokenLifetimeIsBounded() throws {
        let device = try IssuerDevice(["--stated-token-lifetime", String(Int64.max)])
        #expect(try device.login().status == 0)
        let id = try device.replay()
        let upload = try device.run(["upload", String(id)])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try device.collector.stored().count == 1)
    }

    @Test func theClientCredentialsGrantNeedsNoLogin() throws {
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        FileManager.default.createFile(atPath: secretFile, contents: Data("s3cret-for-tests\n".utf8), attributes: [.posixPermissions: 0o600])
        defer { unlink(secretFile) }
        let device = try IssuerDevice(["--client-secret-file", secretFile], auth: ["client_secret_file: \(secretFile)"])
        let login = try device.run(["login"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("accepts the client secret"))
        #expect(!login.stdout.contains("s3cret") && !login.stderr.contains("s3cret"))
        let id = try device.replay()
        let upload = try device.run(["upload", String(id)])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try device.collector.stored().count == 1)
        #expect(!FileManager.default.fileExists(atPath: device.loginFile))

        // A wrong secret: refused, exit 77.
        try Data("wrong\n".utf8).write(to: URL(fileURLWithPath: secretFile))
        let refused = try device.run(["login"])
        #expect(refused.status == 77, "\(refused.stderr)")
    }

    @Test func logoutRevokesTheRefreshTokenAndForgetsIt() throws {
        let device = try IssuerDevice()
        #expect(try device.login().status == 0)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device.loginFile))) as? [String: Any]
        let refresh = try #require(stored?["refresh_token"] as? String)
        let logout = try device.run(["logout", "--json"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let answer = try JSONSerialization.jsonObject(with: Data(logout.stdout.utf8)) as? [String: Any]
        #expect(answer?["revoked"] as? String == "yes")
        #expect(!FileManager.default.fileExists(atPath: device.loginFile))
        // The issuer no longer takes it.
        let curl = try #require(Program.require("curl", package: "curl"))
        let token = try Program.run(
            curl, ["-s", "-d", "client_id=capture", "-d", "grant_type=refresh_token", "--data-urlencode", "refresh_token@-",
                device.issuer + "/protocol/openid-connect/token"], input: Array(refresh.utf8))
        #expect(token.stdout.contains("invalid_grant"), "\(token.stdout)")
        // Twice is fine.
        let again = try device.run(["logout"])
        #expect(again.status == 0 && again.stdout.contains("not logged in"))
    }
}
