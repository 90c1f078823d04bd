import Synchronization

/// Who may see the page: holders of the access token, by cookie (the login form sets it) or
/// `Authorization: Bearer` (scripts). Wrong tokens are limited per client address: each costs one
/// of ``allowance`` attempts, one attempt comes back every ``refill`` ms, and a client with none
/// left is answered 429 without its token being looked at.
package final class Gate: Sendable {
    /// What a request is let through as.
    package enum Decision: Sendable, Equatable {
        /// The token is right.
        case allowed
        /// No token was given: 401, the login form.
        case noToken
        /// A wrong token: 401, counted against the client.
        case wrongToken
        /// Too many wrong tokens from this client: 429, try again after so many seconds.
        case limited(retryAfter: Int)
    }

    /// Wrong tokens a client may give before it must wait.
    package static let allowance = 5
    /// How long a client waits for one more attempt, ms.
    package static let refill: Int64 = 12_000

    private let token: AccessToken
    /// Per client address: attempts left and when they were counted.
    private let attempts = Mutex<[String: (left: Double, at: Int64)]>([:])

    package init(token: AccessToken) { self.token = token }

    /// The decision for a request from `client` at `now` (Unix ms) carrying `given` (nil: none).
    package func decide(_ given: String?, client: String, now: Int64) -> Decision {
        attempts.withLock { attempts in
            var (left, at) = attempts[client] ?? (Double(Self.allowance), now)
            left = min(Double(Self.allowance), left + Double(max(0, now - at)) / Double(Self.refill))
            defer {
                // Full again: forgotten, so that the table holds only clients that erred lately.
                if left >= Double(Self.allowance) { attempts[client] = nil } else { attempts[client] = (left, now) }
            }
            guard left >= 1 else { return .limited(retryAfter: Int(((1 - left) * Double(Self.refill) / 1000).rounded(.up))) }
            guard let given, !given.isEmpty else { return .noToken }
            guard token.matches(given) else {
                left -= 1
                return .wrongToken
            }
            return .allowed
        }
    }
}
