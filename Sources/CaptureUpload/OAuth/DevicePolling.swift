/// The polling of RFC 8628 §3.4–3.5 as a pure state machine: after each answer of the token
/// endpoint, wait and poll again, stop with the tokens, or stop with the reason.
///
/// ```swift
/// var polling = DevicePolling(interval: authorization.interval, expiresIn: authorization.expiresIn)
/// var step = DevicePolling.Step.wait(seconds: polling.interval)
/// while case .wait(let seconds) = step {
///     try await Task.sleep(for: .seconds(seconds))
///     step = polling.answered(await poll(), elapsed: secondsSinceStart())
/// }
/// ```
public struct DevicePolling: Sendable {
    /// What to do next.
    public enum Step: Sendable, Equatable {
        /// Poll again after this many seconds.
        case wait(seconds: Int64)
        /// The person approved: the tokens.
        case done(TokenGrant)
        /// The login ended without tokens.
        case failed(Failure)
    }

    /// Why a device login ended without tokens.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// `access_denied`: the person declined.
        case denied
        /// `expired_token`, or the codes' lifetime passed: nobody approved in time.
        case expired
        /// Another OAuth error (`invalid_client`, …).
        case refused(OAuthError)
        /// The issuer stayed unreachable until the codes expired.
        case unreachable(String)

        /// One line.
        public var description: String {
            switch self {
            case .denied: "the login was declined at the issuer (access_denied)"
            case .expired: "the code expired before anyone approved it (expired_token)"
            case .refused(let error): "\(error)"
            case .unreachable(let why): "the issuer stayed unreachable: \(why)"
            }
        }
    }

    /// The seconds between polls now: the issuer's `interval`, 5 more after every `slow_down`.
    public private(set) var interval: Int64
    /// How many `slow_down` answers there were.
    public private(set) var slowDowns = 0
    /// How many `authorization_pending` answers there were.
    public private(set) var pending = 0
    private let expiresIn: Int64
    private var unreachableInARow = 0

    /// The longest wait between polls and the longest life of codes taken from an issuer's
    /// answer: an hour and a day. Larger numbers (a hostile or broken issuer) are cut to them, so
    /// that the arithmetic below cannot overflow.
    public static let maximumInterval: Int64 = 3600
    public static let maximumLifetime: Int64 = 86_400

    /// Starts polling codes that live `expiresIn` seconds, every `interval` seconds (1 s to an hour).
    public init(interval: Int64, expiresIn: Int64) {
        self.interval = min(max(1, interval), Self.maximumInterval)
        self.expiresIn = min(max(0, expiresIn), Self.maximumLifetime)
    }

    /// The next step after the token endpoint's answer, `elapsed` seconds after the codes were issued.
    public mutating func answered(_ answer: Result<TokenGrant, OAuthError>, elapsed: Int64) -> Step {
        switch answer {
        case .success(let grant):
            return .done(grant)
        case .failure(.refused(let code, let description)):
            unreachableInARow = 0
            switch code {
            case "authorization_pending":
                pending += 1
                return wait(interval, elapsed: elapsed)
            case "slow_down":
                // §3.5: this and every later poll waits 5 seconds longer.
                slowDowns += 1
                interval = min(interval + 5, Self.maximumInterval)
                return wait(interval, elapsed: elapsed)
            case "access_denied": return .failed(.denied)
            case "expired_token": return .failed(.expired)
            default: return .failed(.refused(.refused(code: code, description: description)))
            }
        case .failure(.unreachable(let why)):
            // §3.5: back off exponentially while the issuer does not answer.
            unreachableInARow += 1
            let delay = min(interval << min(unreachableInARow, 6), 60)  // interval ≤ an hour: no overflow
            guard elapsed + delay < expiresIn else { return .failed(.unreachable(why)) }
            return .wait(seconds: delay)
        case .failure(let other):
            return .failed(.refused(other))
        }
    }

    private func wait(_ seconds: Int64, elapsed: Int64) -> Step {
        elapsed + seconds < expiresIn ? .wait(seconds: seconds) : .failed(.expired)
    }
}
