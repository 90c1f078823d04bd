import Foundation

/// How long the device login (`<data dir>/login.json`) lasts if nothing refreshes it, and
/// whether the issuer has ended it: the part of the login record that holds no secret, so that
/// `capture status`, `doctor` and `metrics` read it without the OAuth client.
///
/// Keycloak states a refresh token's life in `refresh_expires_in`: for a login bound to its SSO
/// session, the time to SSO Session Idle (30 minutes by default) or to SSO Session Max (10 hours),
/// whichever comes first; for an offline token (scope `offline_access`) 0, meaning no fixed
/// expiry: the offline session ends after Offline Session Idle (30 days by default) without a
/// refresh. The device cannot read the realm's setting, so it counts with that default.
///
/// ```swift
/// let life = LoginLifetime(grantedAt: now, refreshExpiresIn: 0, scope: "openid offline_access")
/// life.expiresAt             // now + 30 days
/// life.refreshDue(now: now)  // false until half of that has passed
/// ```
public struct LoginLifetime: Sendable, Equatable, Codable {
    /// Unix ms of the last grant: the login itself or the last refresh.
    public var grantedAt: Int64
    /// The refresh token's life in seconds as the issuer stated it (`refresh_expires_in`):
    /// 0 for an offline token, nil if it stated none.
    public var refreshExpiresIn: Int64?
    /// The scopes granted (`scope` of the answer), if stated.
    public var scope: String?
    /// Unix ms at which the issuer refused the refresh token: the login is gone. Nil while it works.
    public var goneAt: Int64?
    /// The issuer's words when it refused (`invalid_grant (Token is not active)`).
    public var goneReason: String?

    enum CodingKeys: String, CodingKey {
        case grantedAt = "granted_at"
        case refreshExpiresIn = "refresh_expires_in"
        case scope
        case goneAt = "gone_at"
        case goneReason = "gone_reason"
    }

    /// The login file's name in the data directory.
    public static let fileName = "login.json"

    /// Keycloak's default Offline Session Idle, 30 days: the life counted for an offline token
    /// (and for a refresh token whose life the issuer did not state).
    public static let assumedOfflineIdle: Int64 = 30 * 86_400
    /// Below this much life left (7 days) `capture doctor` warns.
    public static let warnBelow: Int64 = 7 * 86_400

    /// Creates one; `scope` as the issuer granted it.
    public init(
        grantedAt: Int64, refreshExpiresIn: Int64?, scope: String?, goneAt: Int64? = nil, goneReason: String? = nil
    ) {
        self.grantedAt = grantedAt
        self.refreshExpiresIn = refreshExpiresIn
        self.scope = scope
        self.goneAt = goneAt
        self.goneReason = goneReason
    }

    /// Whether the grant is an offline token: `offline_access` granted and no fixed expiry
    /// (`refresh_expires_in` 0 or not stated).
    public var isOfflineToken: Bool {
        let granted = scope?.split(separator: " ").contains("offline_access") ?? false
        return granted && (refreshExpiresIn ?? 0) == 0
    }

    /// Seconds from a grant to the login's end without a refresh, within 1 s and 10 years (a
    /// larger stated number must not overflow the arithmetic in ms).
    public var lifetime: Int64 {
        guard let stated = refreshExpiresIn, stated > 0 else { return Self.assumedOfflineIdle }
        return min(stated, 10 * 365 * 86_400)
    }

    /// Unix ms at which the login ends if nothing refreshes it.
    public var expiresAt: Int64 { grantedAt + lifetime * 1000 }

    /// Whether a refresh is due at `now` (Unix ms): once half of the life has passed, so that a
    /// timer that runs less often than that still finds the other half left. Never for a login
    /// that is gone.
    public func refreshDue(now: Int64) -> Bool { goneAt == nil && now >= grantedAt + lifetime * 500 }

    /// How the login stands.
    public enum Health: String, Sendable, Codable {
        /// More than ``LoginLifetime/warnBelow`` left.
        case alive
        /// Less than that left.
        case expiring
        /// Refused by the issuer, or past its expiry.
        case gone
    }

    /// How the login stands at `now` (Unix ms).
    public func health(now: Int64) -> Health {
        if goneAt != nil || now >= expiresAt { return .gone }
        return expiresAt - now < Self.warnBelow * 1000 ? .expiring : .alive
    }

    /// The same login, ended by the issuer at `now` with `reason`.
    public func gone(at now: Int64, reason: String) -> LoginLifetime {
        var copy = self
        copy.goneAt = now
        copy.goneReason = reason
        return copy
    }

    /// What `capture status --json` and `capture doctor` show of a login.
    public struct Report: Sendable, Equatable, Codable {
        /// The issuer logged in to.
        public var issuer: String
        /// How it stands.
        public var health: Health
        /// Unix ms at which it ends if nothing refreshes it (for one that is gone: when it was refused, or expired).
        public var expiresAt: Int64
        /// Unix ms of the last grant (the login or the last refresh).
        public var grantedAt: Int64
        /// Whether it is an offline token.
        public var offline: Bool
        /// Why it is gone, if it is.
        public var goneReason: String?
    }

    /// The report at `now` of this login to `issuer`.
    public func report(issuer: String, now: Int64) -> Report {
        Report(
            issuer: issuer, health: health(now: now), expiresAt: goneAt.map { min($0, expiresAt) } ?? expiresAt,
            grantedAt: grantedAt, offline: isOfflineToken, goneReason: goneReason ?? (now >= expiresAt ? "expired" : nil))
    }

    /// The report at `now` of the login file at `path`: nil if there is none, or it does not
    /// say (written before capture kept the lifetime, or not a login record). Reads no secret.
    public static func report(loginFile path: String, now: Int64) -> Report? {
        struct Record: Decodable {
            var issuer: String
            var lifetime: LoginLifetime?
        }
        guard let bytes = FileManager.default.contents(atPath: path),
            let record = try? JSONDecoder().decode(Record.self, from: bytes), let lifetime = record.lifetime
        else { return nil }
        return lifetime.report(issuer: record.issuer, now: now)
    }
}
