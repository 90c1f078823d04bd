import CaptureTestSupport
import Glibc
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

/// The access token's file: made once (mode 600, its directory too), then read back as it is.
@Suite struct AccessTokenTests {
    @Test func madeOnceInADirectoryNotYetThereThenKept() throws {
        let scratch = try Scratch.make("token")
        let path = scratch.path + "/data/web.token"
        let made = try AccessToken.loadOrCreate(at: path)
        #expect(made.created && made.secret.count == 64 && made.secret.allSatisfy(\.isHexDigit))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(scratch.path + "/data", &info) == 0 && info.st_mode & 0o777 == 0o700)
        let again = try AccessToken.loadOrCreate(at: path)
        #expect(!again.created && again.secret == made.secret)
        try "short\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: AccessToken.Failure.tooShort(path: path)) { try AccessToken.loadOrCreate(at: path) }
    }
}
