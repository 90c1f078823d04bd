import CaptureStorage
import Foundation
import Testing

@Suite struct LoginLifetimeTests {
    static let day: Int64 = 86_400_000

    @Test func anOfflineTokenIsCountedWithKeycloaksOfflineIdleAndRefreshedAtHalfOfIt() {
        let life = LoginLifetime(grantedAt: 1000, refreshExpiresIn: 0, scope: "openid profile email offline_access")
        #expect(life.isOfflineToken)
        #expect(life.expiresAt == 1000 + 30 * Self.day)
        #expect(!life.refreshDue(now: 1000 + 15 * Self.day - 1))
        #expect(life.refreshDue(now: 1000 + 15 * Self.day))
        #expect(life.health(now: 1000 + 23 * Self.day - 1) == .alive)
        #expect(life.health(now: 1000 + 23 * Self.day + 1) == .expiring)
        #expect(life.health(now: 1000 + 30 * Self.day) == .gone)
    }

    @Test func aSessionBoundLoginIsNoOfflineTokenAndLastsWhatTheIssuerSaid() {
        let noScope = LoginLifetime(grantedAt: 0, refreshExpiresIn: 0, scope: "openid profile")
        #expect(!noScope.isOfflineToken)
        let session = LoginLifetime(grantedAt: 0, refreshExpiresIn: 1800, scope: "openid offline_access")
        #expect(!session.isOfflineToken)
        #expect(session.expiresAt == 1_800_000)
        #expect(session.refreshDue(now: 900_000))
        #expect(session.health(now: 0) == .expiring)
    }

    @Test func aRefusedLoginIsGoneAndNeverDue() {
        let life = LoginLifetime(grantedAt: 0, refreshExpiresIn: 0, scope: "offline_access").gone(at: 5000, reason: "invalid_grant")
        #expect(life.health(now: 5001) == .gone)
        #expect(!life.refreshDue(now: 40 * Self.day))
        let report = life.report(issuer: "https://i", now: 6000)
        #expect(report.health == .gone && report.expiresAt == 5000 && report.goneReason == "invalid_grant")
    }

    @Test func theReportIsReadFromTheLoginFileWithoutItsSecret() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("login-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let json = """
            {"issuer": "https://i/realms/x", "client_id": "c", "refresh_token": "secret", "logged_in": "2026-11-27T00:00:00Z",
             "lifetime": {"granted_at": 0, "refresh_expires_in": 0, "scope": "openid offline_access"}}
            """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        let report = try #require(LoginLifetime.report(loginFile: path, now: 1))
        #expect(report.issuer == "https://i/realms/x" && report.offline && report.health == .alive)
        #expect(!String(decoding: try JSONEncoder().encode(report), as: UTF8.self).contains("secret"))
        // An older record without a lifetime, or none at all: nothing to report.
        try #"{"issuer": "https://i", "client_id": "c", "refresh_token": "s", "logged_in": "x"}"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(LoginLifetime.report(loginFile: path, now: 1) == nil)
        #expect(LoginLifetime.report(loginFile: path + ".none", now: 1) == nil)
    }
}
