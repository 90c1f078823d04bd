import CaptureUpload
import Synchronization
import Testing

/// The device login's polling loop (`capture login`), with the issuer's answers and the sleeps
/// played by the test.
@Suite struct DeviceLoginTests {
    static let grant = TokenGrant(accessToken: BearerToken("a"), expiresIn: 300, refreshToken: BearerToken("r"))

    static func authorization(interval: Int64 = 5, expiresIn: Int64 = 600) -> DeviceAuthorization {
        DeviceAuthorization(
            deviceCode: BearerToken("d"), userCode: "ABCD-EFGH", verificationURI: "https://issuer/device",
            verificationURIComplete: nil, expiresIn: expiresIn, interval: interval)
    }

    /// Seconds, as the loop hands them over.
    final class Seconds: Sendable {
        private let list = Mutex<[Int64]>([])
        func append(_ seconds: Int64) { list.withLock { $0.append(seconds) } }
        var all: [Int64] { list.withLock { $0 } }
    }

    /// A loop whose sleeps are recorded and whose clock is the sum of them.
    static func login(_ slept: Seconds, slowedDown: Seconds = Seconds()) -> DeviceLogin {
        var login = DeviceLogin()
        login.sleep = { slept.append($0) }
        login.elapsed = { _ in slept.all.reduce(0, +) }
        login.slowedDown = { slowedDown.append($0) }
        return login
    }

    /// Answers in turn, then the grant.
    static func answers(_ list: [Result<TokenGrant, OAuthError>]) -> () async -> Result<TokenGrant, OAuthError> {
        final class Left: Sendable {
            let answers: Mutex<[Result<TokenGrant, OAuthError>]>
            init(_ answers: [Result<TokenGrant, OAuthError>]) { self.answers = Mutex(answers) }
        }
        let left = Left(list)
        return { left.answers.withLock { $0.isEmpty ? .success(grant) : $0.removeFirst() } }
    }

    @Test func pendingThenSlowDownThenTheGrant() async throws {
        let slept = Seconds()
        let slowed = Seconds()
        let grant = try await Self.login(slept, slowedDown: slowed).poll(
            Self.authorization(),
            ask: Self.answers([
                .failure(.refused(code: "authorization_pending", description: nil)),
                .failure(.refused(code: "slow_down", description: nil)),
                .failure(.refused(code: "authorization_pending", description: nil)),
            ]))
        #expect(grant == Self.grant)
        // The first wait, the pending one, then 5 s more for good after slow_down.
        #expect(slept.all == [5, 5, 10, 10])
        #expect(slowed.all == [10])
    }

    @Test func aDeclinedLoginThrowsDenied() async {
        let slept = Seconds()
        await #expect(throws: DevicePolling.Failure.denied) {
            try await Self.login(slept).poll(Self.authorization(), ask: Self.answers([.failure(.refused(code: "access_denied", description: nil))]))
        }
    }

    @Test func codesThatExpireWhilePendingThrowExpired() async {
        let slept = Seconds()
        let pending = Array(repeating: Result<TokenGrant, OAuthError>.failure(.refused(code: "authorization_pending", description: nil)), count: 10)
        await #expect(throws: DevicePolling.Failure.expired) {
            try await Self.login(slept).poll(Self.authorization(interval: 5, expiresIn: 12), ask: Self.answers(pending))
        }
        // Polled at 5 and 10 s; a third wait would pass the 12 s lifetime.
        #expect(slept.all == [5, 5])
    }

    @Test func anIssuerThatStaysUnreachableEndsTheLoginAsUnreachable() async {
        let slept = Seconds()
        let down = Array(repeating: Result<TokenGrant, OAuthError>.failure(.unreachable("refused")), count: 20)
        await #expect(throws: DevicePolling.Failure.unreachable("refused")) {
            try await Self.login(slept).poll(Self.authorization(interval: 5, expiresIn: 100), ask: Self.answers(down))
        }
    }
}
