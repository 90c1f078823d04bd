import Testing

@testable import CaptureWeb

/// The gate: the right token passes, a wrong one is 401 and counted, five wrong ones from an
/// address make it wait (429) while other addresses go on, and waiting gives tries back.
@Suite struct GateTests {
    let token = AccessToken(secret: "0123456789abcdef0123456789abcdef", created: false)

    @Test func rightWrongAndNone() {
        let gate = Gate(token: token)
        #expect(gate.decide(token.secret, client: "a", now: 0) == .allowed)
        #expect(gate.decide(nil, client: "a", now: 0) == .noToken)
        #expect(gate.decide("", client: "a", now: 0) == .noToken)
        #expect(gate.decide(token.secret + "0", client: "a", now: 0) == .wrongToken)
        #expect(gate.decide(String(token.secret.dropLast()), client: "a", now: 0) == .wrongToken)
    }

    @Test func wrongTokensAreLimitedPerAddress() {
        let gate = Gate(token: token)
        for _ in 0..<Gate.allowance { #expect(gate.decide("guess", client: "10.0.0.2", now: 1000) == .wrongToken) }
        // Even the right token waits: a guesser learns nothing while limited.
        #expect(gate.decide(token.secret, client: "10.0.0.2", now: 1000) == .limited(retryAfter: 12))
        #expect(gate.decide(token.secret, client: "10.0.0.3", now: 1000) == .allowed)
        // One try comes back after Gate.refill.
        #expect(gate.decide(token.secret, client: "10.0.0.2", now: 1000 + Gate.refill) == .allowed)
        #expect(gate.decide("guess", client: "10.0.0.2", now: 1000 + Gate.refill) == .wrongToken)
        #expect(gate.decide("guess", client: "10.0.0.2", now: 1000 + Gate.refill + 1) == .limited(retryAfter: 12))
    }
}
