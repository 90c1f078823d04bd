import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A device login against the test issuer's Keycloak session rules, the whole story in seconds:
/// a session-bound login that dies and the backlog delivered after a new login, an offline login
/// that outlives the session idle, and one kept alive across an idle month (libfaketime moves the
/// wall clock of the collector and of every command).
@Suite(.serialized) struct LoginLifetimeEndToEndTests {
    /// The JSON object of a command's standard output.
    static func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The `lifetime` of the login file.
    static func lifetime(_ device: IssuerDevice) throws -> [String: Any] {
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device.loginFile)))
        return (record as? [String: Any])?["lifetime"] as? [String: Any] ?? [:]
    }

    /// Requests to the issuer's token endpoint the collector logged (answered or refused).
    static func tokenRequests(_ device: IssuerDevice) -> Int {
        device.collector.process.stderr.split(separator: "\n").filter { $0.contains("/protocol/openid-connect/token ") }.count
    }

    @Test func aSessionBoundLoginDiesIsSaidOnceAndTheBacklogGoesAfterANewLogin() throws {
        let device = try IssuerDevice(["--no-offline-access", "--sso-session-idle", "2"])
        let login = try device.login()
        #expect(login.status == 0, "\(login)")
        let warnings = login.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(login.stderr)")
        #expect(warnings.first?.contains("no offline token") == true && warnings.first?.contains("offline_access") == true)
        #expect(try Self.lifetime(device)["refresh_expires_in"] as? Int == 2)
        let answer = Self.object(login.lines.last ?? "")
        #expect(answer["offline_token"] as? Bool == false && (answer["expires_at"] as? Int64 ?? 0) > 0, "\(answer)")

        let id = try device.replay()
        sleep(3)  // past the SSO Session Idle of 2 s
        let sync = try device.run(["sync", "--json"])
        #expect(sync.status == 77, "\(sync)")
        let report = Self.object(sync.stdout)
        #expect(report["decision"] as? String == "login-gone")
        #expect((report["reason"] as? String)?.contains("Session not active") == true, "\(report)")
        #expect(report["waiting"] as? Int == 1)

        // Said once: the next pass does not ask the issuer again, and says the same.
        let asked = Self.tokenRequests(device)
        let again = try device.run(["sync"])
        #expect(again.status == 77)
        #expect(again.stdout.split(separator: "\n").count == 1 && again.stdout.contains("capture login"), "\(again.stdout)")
        #expect(Self.tokenRequests(device) == asked)
        let upload = try device.run(["upload"])
        #expect(upload.status == 77, "\(upload)")

        // status, doctor and metrics show it.
        let status = Self.object(try device.run(["status", "--json"]).stdout)
        #expect((status["login"] as? [String: Any])?["health"] as? String == "gone", "\(status)")
        let doctor = try device.run(["doctor", "--json", "--seconds", "0"])
        #expect(doctor.status == 1)
        let checks = (Self.object(doctor.stdout)["checks"] as? [[String: Any]]) ?? []
        #expect(checks.first { $0["check"] as? String == "login" }?["status"] as? String == "fail", "\(doctor.stdout)")
        let metrics = try device.run(["metrics"])
        #expect(metrics.stdout.contains("\ncapture_login_gone 1"), "\(metrics.stdout)")

        // A new login, and the next pass delivers what waited; nothing else typed.
        #expect(try device.login().status == 0)
        let delivered = try device.run(["sync", "--json"])
        #expect(delivered.status == 0, "\(delivered)")
        #expect(Self.object(delivered.stdout)["decision"] as? String == "delivered")
        #expect(try device.uploadState(id)["status"] as? String == "uploaded")
        #expect(try device.collector.stored().count == 1)
    }

    /// A box logged in before its first ride has no store: its sync passes still keep the login
    /// alive (and create nothing).
    @Test func aLoginIsKeptAliveBeforeTheFirstRide() throws {
        let device = try IssuerDevice(["--no-offline-access", "--sso-session-idle", "4", "--sso-session-max", "3600"])
        #expect(try device.login().status == 0)
        let store = device.data + "/capture.sqlite"
        #expect(!FileManager.default.fileExists(atPath: store))
        let before = try Data(contentsOf: URL(fileURLWithPath: device.loginFile))
        sleep(3)  // past half the stated life of 4 s
        let sync = try device.run(["sync", "--json"])
        #expect(sync.status == 0, "\(sync)")
        #expect(Self.object(sync.stdout)["decision"] as? String == "nothing-waiting", "\(sync.stdout)")
        let after = try Data(contentsOf: URL(fileURLWithPath: device.loginFile))
        #expect(after != before, "the login was not refreshed")
        #expect(try Self.lifetime(device)["refresh_expires_in"] as? Int == 4)
        #expect(!FileManager.default.fileExists(atPath: store))
        // Still alive two seconds past the first life: the refresh renewed the session.
        sleep(3)
        #expect(try device.run(["sync", "--json"]).status == 0)
    }

    @Test func anOfflineLoginOutlivesTheSessionIdleAndMax() throws {
        let device = try IssuerDevice(["--sso-session-idle", "1", "--sso-session-max", "2"])
        let login = try device.login()
        #expect(login.status == 0, "\(login)")
        #expect(!login.stderr.contains("warning"), "\(login.stderr)")
        #expect(Self.object(login.lines.last ?? "")["offline_token"] as? Bool == true, "\(login.lines)")
        let lifetime = try Self.lifetime(device)
        #expect(lifetime["refresh_expires_in"] as? Int == 0)
        #expect((lifetime["scope"] as? String)?.contains("offline_access") == true)
        _ = try device.replay()
        sleep(3)
        let sync = try device.run(["sync", "--json"])
        #expect(sync.status == 0, "\(sync)")
        #expect(Self.object(sync.stdout)["decision"] as? String == "delivered")
        let status = Self.object(try device.run(["status", "--json"]).stdout)
        let shown = status["login"] as? [String: Any]
        #expect(shown?["health"] as? String == "alive" && shown?["offline"] as? Bool == true, "\(status)")
    }

    @Test func anIdleMonthWithATimerKeepsTheOfflineLoginAliveAndRotatesItsToken() throws {
        let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
        guard FileManager.default.fileExists(atPath: library) else {
            Issue.record("libfaketime is not installed: run scripts/setup (installs Debian's faketime)")
            return
        }
        let offset = FileManager.default.temporaryDirectory.appendingPathComponent("faketime-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: offset) }
        func move(to spec: String) throws { try (spec + "\n").write(toFile: offset, atomically: true, encoding: .utf8) }
        try move(to: "+0d")
        // Every process reads the offset file at each clock call; the monotonic clock stays real.
        let device = try IssuerDevice(
            ["--revoke-refresh-token"],
            environment: [
                "LD_PRELOAD=\(library)", "FAKETIME_TIMESTAMP_FILE=\(offset)", "FAKETIME_NO_CACHE=1",
                "FAKETIME_DONT_FAKE_MONOTONIC=1",
            ])
        #expect(try device.login().status == 0)
        _ = try device.replay()
        #expect(try device.run(["sync"]).status == 0)
        let loggedIn = try #require(try Self.lifetime(device)["granted_at"] as? Int64)

        // Twenty days later nothing waits, but the timer's pass refreshes the login (due at 15
        // days), and the rotated refresh token replaces the used one, which no longer works.
        try move(to: "+20d")
        let asked = Self.tokenRequests(device)
        let idle = try device.run(["sync", "--json"])
        #expect(idle.status == 0, "\(idle)")
        #expect(Self.object(idle.stdout)["decision"] as? String == "nothing-waiting")
        #expect(Self.tokenRequests(device) == asked + 1)
        let refreshed = try #require(try Self.lifetime(device)["granted_at"] as? Int64)
        #expect(refreshed - loggedIn >= 20 * 86_400_000 - 60_000, "\(refreshed - loggedIn)")

        // Forty-five days after the login, 25 after the refresh: a new ride is delivered.
        try move(to: "+45d")
        let id = try device.replay()
        let sync = try device.run(["sync", "--json"])
        #expect(sync.status == 0, "\(sync)")
        #expect(try device.uploadState(id)["status"] as? String == "uploaded")

        // Then 35 days without a pass: past the Offline Session Idle, the issuer ends it.
        try move(to: "+80d")
        _ = try device.replay()
        let gone = try device.run(["sync", "--json"])
        #expect(gone.status == 77, "\(gone)")
        #expect((Self.object(gone.stdout)["reason"] as? String)?.contains("Offline session not active") == true, "\(gone.stdout)")
    }
}
