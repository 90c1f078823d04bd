public import CaptureStorage
import Foundation

/// Keeps the device login alive: refreshes it once half of its life has passed
/// (``CaptureStorage/LoginLifetime/refreshDue(now:)``), whether or not anything waits to be
/// sent. ``DeliveryPass`` runs it at the start of every pass, so a box that syncs on a timer
/// keeps an offline token for months without a ride.
///
/// ```swift
/// switch await LoginKeepAlive.run(settings, now: Delivery.nowMs()) {
/// case .gone(let login): print("log in again: \(login.goneReason ?? "")")
/// default: break
/// }
/// ```
public enum LoginKeepAlive: Sendable, Equatable {
    /// No device login to keep: a client secret, or nobody logged in.
    case none
    /// Not due yet.
    case fresh(LoginLifetime.Report)
    /// Refreshed now.
    case refreshed(LoginLifetime.Report)
    /// The issuer refused the refresh token (now or before), or the login expired: only a new
    /// login helps.
    case gone(LoginLifetime.Report)
    /// Due, but the refresh did not happen (the issuer unreachable, an unusable login file):
    /// the next pass tries again.
    case failed(String)

    /// Refreshes the login of `settings` if due at `now` (Unix ms, the wall clock).
    public static func run(_ settings: OAuthSettings, now: Int64) async -> LoginKeepAlive {
        guard settings.clientSecretFile == nil else { return .none }
        let login: StoredLogin
        do {
            guard let found = try StoredLogin.read(settings.loginPath) else { return .none }
            login = found
        } catch {
            return .failed("\(error)")
        }
        if let lifetime = login.lifetime {
            // Past its counted expiry it is still asked: the realm may keep logins longer than counted.
            if lifetime.goneAt != nil { return .gone(lifetime.report(issuer: login.issuer, now: now)) }
            if !lifetime.refreshDue(now: now) { return .fresh(lifetime.report(issuer: login.issuer, now: now)) }
        }
        let session = OAuthSession(settings, clock: { now })
        do throws(OAuthError) {
            try await session.renew()
        } catch {
            // A refusal is in the record now; anything else leaves it as it was.
            guard error.refusesCredentials, let after = try? StoredLogin.read(settings.loginPath),
                let lifetime = after.lifetime
            else { return .failed("\(error)") }
            return .gone(lifetime.report(issuer: after.issuer, now: now))
        }
        guard let after = try? StoredLogin.read(settings.loginPath), let lifetime = after.lifetime else {
            return .failed("the login file could not be read back after the refresh")
        }
        return .refreshed(lifetime.report(issuer: after.issuer, now: now))
    }
}
