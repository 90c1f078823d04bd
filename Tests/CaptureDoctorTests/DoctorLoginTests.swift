import CaptureStorage
import Foundation
import Testing

@testable import CaptureDoctor

/// `capture doctor`'s login check on login files written by the test: the issuer is never asked.
@Suite struct DoctorLoginTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_800_000_000_000

    /// The login check of a device whose login file has `lifetime` (none: no file).
    static func check(_ lifetime: String?, yaml: String = "auth: { issuer: \"https://sso.example/realms/x\", client_id: capture }") throws
        -> [DoctorCheck]
    {
        let setup = try DoctorDevice()
        if let lifetime {
            let record = """
                {"issuer": "https://sso.example/realms/x", "client_id": "capture", "refresh_token": "secret",
                 "logged_in": "2027-01-15T08:00:00Z", "lifetime": \(lifetime)}
                """
            try record.write(toFile: setup.data + "/" + LoginLifetime.fileName, atomically: true, encoding: .utf8)
        }
        return Doctor().login(try setup.device(yaml), now: now)
    }

    @Test func anOfflineLoginWithWeeksLeftPasses() throws {
        let checks = try Self.check(#"{"granted_at": \#(Self.now - Self.day), "refresh_expires_in": 0, "scope": "openid offline_access"}"#)
        #expect(checks.map(\.status) == [.pass])
        #expect(checks.first?.detail.hasPrefix("offline login to https://sso.example/realms/x; ends ") == true)
    }

    @Test func anOfflineLoginWithLessThanAWeekLeftWarns() throws {
        let checks = try Self.check(#"{"granted_at": \#(Self.now - 24 * Self.day), "refresh_expires_in": 0, "scope": "offline_access"}"#)
        #expect(checks.map(\.status) == [.warn])
        #expect(checks.first?.advice == DoctorRemedy.refreshLogin.description)
    }

    @Test func aSessionBoundLoginWarnsWithTheScopeToAllow() throws {
        let checks = try Self.check(#"{"granted_at": \#(Self.now), "refresh_expires_in": 1800, "scope": "openid profile"}"#)
        #expect(checks.map(\.status) == [.warn])
        #expect(checks.first?.advice == DoctorRemedy.allowOfflineAccess.description)
    }

    @Test func aLoginThatIsGoneFails() throws {
        let checks = try Self.check(
            #"{"granted_at": \#(Self.now - Self.day), "refresh_expires_in": 0, "gone_at": \#(Self.now - 1000), "gone_reason": "invalid_grant"}"#)
        #expect(checks.map(\.status) == [.fail])
        #expect(checks.first?.detail.contains("invalid_grant") == true)
    }

    @Test func noLoginFileOrAClientSecretIsNoCheck() throws {
        #expect(try Self.check(nil).isEmpty)
        let secret = "auth: { issuer: \"https://sso.example/realms/x\", client_id: capture, client_secret_file: /nonexistent }"
        #expect(try Self.check(#"{"granted_at": 0, "refresh_expires_in": 0, "gone_at": 1}"#, yaml: secret).isEmpty)
    }
}
