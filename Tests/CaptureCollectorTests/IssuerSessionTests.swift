import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

@testable import CaptureCollector

/// The test issuer's Keycloak session rules, in-process on a clock the test moves: SSO session
/// idle and max, offline idle, refresh-token rotation.
@Suite struct IssuerSessionTests {
    /// A wall clock that only moves when told.
    final class TestClock: Sendable {
        let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
        var now: Date { date.withLock { $0 } }
    }

    /// An issuer with `configure` applied and the test's clock.
    static func issuer(_ clock: TestClock, _ configure: (inout Issuer.Configuration) -> Void = { _ in }) async throws -> Collector {
        var settings = Issuer.Configuration()
        settings.interval = 1
        settings.now = { clock.now }
        configure(&settings)
        var configuration = Collector.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("issuer-\(UUID().uuidString)").path,
            token: "unused")
        configuration.issuer = settings
        return try await Collector(configuration, storage: MemoryCollectorStorage(), logger: Logger(label: "issuer-session-tests"))
    }

    static let base = "/" + Issuer.realm + "/protocol/openid-connect"

    /// POSTs a form; the status and the JSON object answered.
    static func post(_ client: some TestClientProtocol, _ path: String, _ form: [String: String]) async throws -> (Int, [String: Any]) {
        let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.value)" }
            .joined(separator: "&")
        let response = try await client.execute(
            uri: base + path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: body))
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }

    /// A device login asking for `scope`, approved at once: the token answer.
    static func logIn(_ client: some TestClientProtocol, scope: String?) async throws -> [String: Any] {
        var form = ["client_id": "capture"]
        form["scope"] = scope
        let (status, device) = try await post(client, "/auth/device", form)
        #expect(status == 200)
        let userCode = try #require(device["user_code"] as? String)
        let approval = try await client.execute(uri: "/\(Issuer.realm)/device?user_code=\(userCode)", method: .get)
        #expect(approval.status == .ok)
        let (polled, grant) = try await post(
            client, "/token",
            [
                "client_id": "capture", "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                "device_code": try #require(device["device_code"] as? String),
            ])
        #expect(polled == 200, "\(grant)")
        return grant
    }

    /// One refresh: the status and the answer.
    static func refresh(_ client: some TestClientProtocol, _ token: Any?) async throws -> (Int, [String: Any]) {
        try await post(
            client, "/token", ["client_id": "capture", "grant_type": "refresh_token", "refresh_token": token as? String ?? ""])
    }

    @Test func aSessionBoundLoginEndsAfterTheSessionIdle() async throws {
        let clock = TestClock()
        let collector = try await Self.issuer(clock)
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router) { client in
            let grant = try await Self.logIn(client, scope: "openid")
            #expect(grant["scope"] as? String == "openid profile email")
            #expect(grant["refresh_expires_in"] as? Int == 1800)
            // Refreshed within the idle time, it lives on: the idle time counts from the refresh.
            clock.advance(1700)
            let (ok, renewed) = try await Self.refresh(client, grant["refresh_token"])
            #expect(ok == 200)
            #expect(renewed["refresh_token"] as? String != grant["refresh_token"] as? String, "rotated")
            clock.advance(1801)
            let (refused, answer) = try await Self.refresh(client, renewed["refresh_token"])
            #expect(refused == 400)
            #expect(answer["error"] as? String == "invalid_grant")
            #expect(answer["error_description"] as? String == "Session not active")
        }
    }

    @Test func aSessionBoundLoginEndsAtTheSessionMaxHoweverOftenItIsRefreshed() async throws {
        let clock = TestClock()
        let collector = try await Self.issuer(clock) { $0.ssoSessionMax = 3000 }
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router) { client in
            var token = try await Self.logIn(client, scope: "openid")["refresh_token"]
            clock.advance(1500)
            let (ok, renewed) = try await Self.refresh(client, token)
            #expect(ok == 200)
            // 1500 s of the 3000 s maximum are left: less than the idle time.
            #expect(renewed["refresh_expires_in"] as? Int == 1500)
            token = renewed["refresh_token"]
            clock.advance(1501)
            #expect(try await Self.refresh(client, token).0 == 400)
        }
    }

    @Test func anOfflineLoginOutlivesTheSessionIdleUntilTheOfflineIdle() async throws {
        let clock = TestClock()
        let collector = try await Self.issuer(clock)
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router) { client in
            let grant = try await Self.logIn(client, scope: "openid offline_access")
            #expect(grant["scope"] as? String == "openid profile email offline_access")
            #expect(grant["refresh_expires_in"] as? Int == 0)
            // Twenty days idle, far past the SSO limits: the offline session lives on.
            clock.advance(20 * 86_400)
            let (ok, renewed) = try await Self.refresh(client, grant["refresh_token"])
            #expect(ok == 200, "\(renewed)")
            #expect(renewed["refresh_expires_in"] as? Int == 0)
            // Thirty days and a second without a refresh: gone.
            clock.advance(30 * 86_400 + 1)
            let (refused, answer) = try await Self.refresh(client, renewed["refresh_token"])
            #expect(refused == 400)
            #expect(answer["error_description"] as? String == "Offline session not active")
        }
    }

    @Test func withoutOfflineAccessAllowedTheScopeIsLeftOut() async throws {
        let clock = TestClock()
        let collector = try await Self.issuer(clock) { $0.offlineAccess = false }
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router) { client in
            let grant = try await Self.logIn(client, scope: "openid offline_access")
            #expect(grant["scope"] as? String == "openid profile email")
            #expect(grant["refresh_expires_in"] as? Int == 1800)
        }
    }

    @Test func revokeRefreshTokenMakesEveryRefreshTokenWorkOnce() async throws {
        let clock = TestClock()
        let collector = try await Self.issuer(clock) { $0.revokeRefreshToken = true }
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router) { client in
            let first = try await Self.logIn(client, scope: "openid offline_access")["refresh_token"]
            let (ok, renewed) = try await Self.refresh(client, first)
            #expect(ok == 200)
            // The used one is refused; the rotated one works (once).
            #expect(try await Self.refresh(client, first).1["error"] as? String == "invalid_grant")
            #expect(try await Self.refresh(client, renewed["refresh_token"]).0 == 200)
            #expect(try await Self.refresh(client, renewed["refresh_token"]).0 == 400)
        }
    }

    @Test func withoutRevocationAnOlderRefreshTokenOfALiveSessionStillWorks() async throws {
        let clock = TestClock()
        let collector = try await Self.issuer(clock)
        try await collector.application(host: "127.0.0.1", port: 0) { _ in }.test(.router) { client in
            let first = try await Self.logIn(client, scope: "openid offline_access")["refresh_token"]
            #expect(try await Self.refresh(client, first).0 == 200)
            #expect(try await Self.refresh(client, first).0 == 200)
        }
    }
}
