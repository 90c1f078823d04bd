import CaptureCore
public import Foundation
public import Logging

extension Collector {
    /// How the collector runs.
    public struct Configuration: Sendable {
        /// Where completed uploads are stored.
        public var dataDirectory: String
        /// How requests are authenticated: a fixed token, or JWTs from an issuer.
        public var authentication: CollectorAuthentication
        /// Serve a small OAuth 2.0 issuer too (tests and the demo); its tokens are then the
        /// ones accepted (``authentication`` is replaced once the collector is made).
        public var issuer: Issuer.Configuration?
        /// Sessions unused for this long are forgotten (404).
        public var sessionExpiry: Duration = .seconds(30 * 60)
        /// The largest upload accepted, in bytes (larger: 422, as `PayloadTooLarge`); the real
        /// collector's `measurement.payload.limit` default, 100 MiB.
        public var payloadLimit: Int64 = 104_857_600
        /// Decode each completed upload as a Cyface v3 transfer file and refuse invalid ones (422).
        public var validate = false
        /// Faults to inject.
        public var faults = FaultPlan.Configuration()
        /// The most upload sessions open at once (not completed, not expired); a pre-request
        /// beyond answers 429 with `Retry-After`.
        public var maxSessions = 1000
        /// Connections idle (nothing read or written) this long are closed; nil: never.
        public var idleTimeout: Duration? = .seconds(120)
        /// The largest header field, and all header fields together, read; larger: 400 and the
        /// connection closed (Hummingbird's answer to a parser error; Vert.x's `maxHeaderSize`,
        /// 8 KiB, answers 431). 16 KiB: room for long JWTs.
        public var maxHeaderBytes = 16 * 1024
        /// Receive at most this many bytes per second per upload (tests that interrupt an
        /// upload need it to last); nil for full speed.
        public var throttle: Int64?

        /// Creates a configuration with a fixed token.
        public init(dataDirectory: String, token: String) {
            self.init(dataDirectory: dataDirectory, authentication: .token(token))
        }

        /// Creates a configuration.
        public init(dataDirectory: String, authentication: CollectorAuthentication) {
            self.dataDirectory = dataDirectory
            self.authentication = authentication
        }
    }
}
