public import Foundation

extension Issuer {
    /// How the issuer behaves.
    public struct Configuration: Sendable {
        /// The one client it knows.
        public var clientID = "capture"
        /// The client's secret; the client-credentials grant needs it (HTTP Basic), nil: no such grant.
        public var clientSecret: String?
        /// The `aud` of its access tokens.
        public var audience = "capture-collector"
        /// Seconds an access token lives.
        public var tokenLifetime: Int64 = 300
        /// The `expires_in` its token answers state, if not the true lifetime: a larger one makes
        /// clients use tokens the collector already refuses (clock skew; tests of the 401 path).
        public var statedTokenLifetime: Int64?
        /// Seconds a device code lives.
        public var deviceCodeLifetime: Int64 = 600
        /// Seconds a device must wait between polls.
        public var interval: Int64 = 5
        /// Answer `slow_down` to this many polls of each device code, whatever their pace (tests).
        public var slowDownPolls = 0
        /// Seconds an SSO session lives without a refresh: Keycloak's SSO Session Idle (30 min).
        public var ssoSessionIdle: Int64 = 1800
        /// Seconds an SSO session lives at most: Keycloak's SSO Session Max (10 h).
        public var ssoSessionMax: Int64 = 36_000
        /// Seconds an offline session lives without a refresh: Keycloak's Offline Session Idle (30 days).
        public var offlineSessionIdle: Int64 = 2_592_000
        /// Whether the client may be granted `offline_access` (in Keycloak: the scope is among the
        /// client's optional scopes, as in a new realm). Without it the scope is left out of the grant.
        public var offlineAccess = true
        /// Keycloak's Revoke Refresh Token (off by default): a refresh token works once; the one
        /// in the answer replaces it.
        public var revokeRefreshToken = false
        /// The wall clock session times are counted on.
        public var now: @Sendable () -> Date = { Date() }

        /// The defaults.
        public init() {}
    }
}
