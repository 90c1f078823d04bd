import CaptureCore
import CaptureUpload
import Testing

// The upload state machine keeping the token to its origins. The shared helpers (machine(), putting(), policy, R)
// are in UploadStateMachineTests.swift.

@Suite struct TokenScopeTests {
    let collector = URLOrigin("http://127.0.0.1:8080/api/v4")!

    func scoped(trusting trusted: [String] = []) -> Machine {
        Machine(
            totalLength: 1000, policy: policy, scope: TokenScope(collector: collector, trusted: trusted.compactMap(URLOrigin.init)),
            random: FixedRandom(value: 0))
    }

    @Test func originsCompareSchemeHostAndPortWithDefaultPorts() {
        #expect(URLOrigin("HTTPS://Example.COM/a") == URLOrigin("https://example.com:443/b?c"))
        #expect(URLOrigin("http://example.com/") == URLOrigin("http://example.com:80"))
        #expect(URLOrigin("http://example.com/") != URLOrigin("https://example.com/"))
        #expect(URLOrigin("http://127.0.0.1:8080/") != URLOrigin("http://127.0.0.1:8081/"))
        #expect(URLOrigin("http://127.0.0.1:8080/") != URLOrigin("http://127.0.0.2:8080/"))
        #expect(URLOrigin("https://example.com/")?.description == "https://example.com:443")
        #expect(URLOrigin("ftp://example.com/") == nil && URLOrigin("/relative") == nil && URLOrigin("") == nil)
    }

    @Test func aSessionOnTheCollectorsOriginIsUsed() {
        var m = scoped()
        _ = m.start(session: nil)
        let session = "http://127.0.0.1:8080/api/v4/measurements/(abc)/"
        #expect(m.preRequestAnswered(R(status: 201, location: session), elapsed: 0) == .put(session: session, range: 0...999))
    }

    @Test(arguments: [
        "http://127.0.0.2:8080/api/v4/s/1",  // another host
        "http://127.0.0.1:8081/api/v4/s/1",  // another port
        "https://127.0.0.1:8080/api/v4/s/1",  // another scheme
        "http://evil.example/api/v4/s/1",
    ])
    func aSessionOnAnotherOriginFailsBeforeAnythingIsSentThere(_ location: String) {
        var m = scoped()
        _ = m.start(session: nil)
        let action = m.preRequestAnswered(R(status: 201, location: location), elapsed: 0)
        guard case .done(.failed(let reason)) = action else {
            Issue.record("expected a failure, got \(action)")
            return
        }
        #expect(reason.contains("another origin (\(URLOrigin(location)!))"), "\(reason)")
        #expect(reason.contains("than the collector (http://127.0.0.1:8080)"), "\(reason)")
        #expect(m.session == nil)
    }

    @Test func aTrustedOriginIsUsed() {
        var m = scoped(trusting: ["http://127.0.0.2:8080/anything"])
        _ = m.start(session: nil)
        let session = "http://127.0.0.2:8080/api/v4/s/1"
        #expect(m.preRequestAnswered(R(status: 201, location: session), elapsed: 0) == .put(session: session, range: 0...999))
        // Trusting one origin trusts no other.
        var other = scoped(trusting: ["http://127.0.0.2:8080"])
        _ = other.start(session: nil)
        guard case .done(.failed) = other.preRequestAnswered(R(status: 201, location: "http://127.0.0.3:8080/s"), elapsed: 0)
        else {
            Issue.record("an untrusted origin was accepted")
            return
        }
    }

    @Test func aStoredSessionOnAnOriginNoLongerTrustedIsNotAskedButReplaced() {
        var m = scoped()
        #expect(m.start(session: "http://127.0.0.2:8080/api/v4/s/1") == .preRequest)
        var own = scoped()
        let session = "http://127.0.0.1:8080/api/v4/s/1"
        #expect(own.start(session: session) == .queryStatus(session: session))
    }
}
