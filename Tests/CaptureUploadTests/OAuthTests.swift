import CaptureUpload
import Foundation
import Testing

/// A 401 with renewable credentials (issue 12.2): renew once, ask where the upload stands, go on.
@Suite struct TokenRenewalTests {
    func renewable(_ total: Int64 = 1000, chunk: Int64? = 100) -> Machine {
        var m = Machine(totalLength: total, chunkSize: chunk, policy: policy, renewable: true, random: FixedRandom(value: 0))
        _ = m.start(session: nil)
        _ = m.preRequestAnswered(R(status: 200, location: url), elapsed: 0)
        return m
    }

    @Test func a401DuringAnUploadRenewsAndContinuesFromTheCollectorsOffset() {
        var m = renewable()
        #expect(m.putAnswered(R(status: 308, range: "bytes=0-99"), elapsed: 0) == .put(session: url, range: 100...199))
        #expect(m.putAnswered(R(status: 401), elapsed: 0) == .renewToken)
        #expect(m.session == url)
        #expect(m.tokenRenewed() == .queryStatus(session: url))
        #expect(m.statusAnswered(R(status: 308, range: "bytes=0-99"), elapsed: 0) == .put(session: url, range: 100...199))
        // Working again: a later 401 may renew again.
        #expect(m.putAnswered(R(status: 308, range: "bytes=0-199"), elapsed: 0) == .put(session: url, range: 200...299))
        #expect(m.putAnswered(R(status: 401), elapsed: 0) == .renewToken)
    }

    @Test func a401RightAfterARenewalEndsTheUpload() {
        var m = renewable()
        #expect(m.putAnswered(R(status: 401), elapsed: 0) == .renewToken)
        #expect(m.tokenRenewed() == .queryStatus(session: url))
        #expect(m.statusAnswered(R(status: 401, reason: "bearer token refused"), elapsed: 0)
            == .done(.unauthorized(reason: "HTTP 401: bearer token refused")))
    }

    @Test func a401ToThePreRequestRenewsAndAsksAgain() {
        var m = Machine(totalLength: 1000, policy: policy, renewable: true, random: FixedRandom(value: 0))
        #expect(m.start(session: nil) == .preRequest)
        #expect(m.preRequestAnswered(R(status: 401), elapsed: 0) == .renewToken)
        #expect(m.session == nil)
        #expect(m.tokenRenewed() == .preRequest)
    }

    @Test func aFixedTokenIsNotRenewed() {
        var m = putting()
        #expect(m.putAnswered(R(status: 401), elapsed: 0) == .done(.unauthorized(reason: "HTTP 401")))
    }
}

/// RFC 8628 §3.5's polling (issue 12.1).
@Suite struct DevicePollingTests {
    let grant = TokenGrant(accessToken: BearerToken("a"), expiresIn: 300, refreshToken: BearerToken("r"))

    func refused(_ code: String) -> Result<TokenGrant, OAuthError> { .failure(.refused(code: code, description: nil)) }

    @Test func pendingWaitsTheIntervalThenTheGrantEndsIt() {
        var polling = DevicePolling(interval: 5, expiresIn: 600)
        #expect(polling.answered(refused("authorization_pending"), elapsed: 5) == .wait(seconds: 5))
        #expect(polling.answered(refused("authorization_pending"), elapsed: 10) == .wait(seconds: 5))
        #expect(polling.answered(.success(grant), elapsed: 15) == .done(grant))
        #expect(polling.pending == 2)
    }

    @Test func slowDownAddsFiveSecondsForGood() {
        var polling = DevicePolling(interval: 5, expiresIn: 600)
        #expect(polling.answered(refused("slow_down"), elapsed: 5) == .wait(seconds: 10))
        #expect(polling.answered(refused("authorization_pending"), elapsed: 15) == .wait(seconds: 10))
        #expect(polling.answered(refused("slow_down"), elapsed: 25) == .wait(seconds: 15))
        #expect(polling.interval == 15 && polling.slowDowns == 2)
    }

    @Test func deniedAndExpiredEndIt() {
        var polling = DevicePolling(interval: 5, expiresIn: 600)
        #expect(polling.answered(refused("access_denied"), elapsed: 5) == .failed(.denied))
        #expect(polling.answered(refused("expired_token"), elapsed: 5) == .failed(.expired))
        #expect(polling.answered(refused("invalid_client"), elapsed: 5)
            == .failed(.refused(.refused(code: "invalid_client", description: nil))))
    }

    @Test func theCodesLifetimeBoundsTheWaiting() {
        var polling = DevicePolling(interval: 5, expiresIn: 12)
        #expect(polling.answered(refused("authorization_pending"), elapsed: 5) == .wait(seconds: 5))
        #expect(polling.answered(refused("authorization_pending"), elapsed: 10) == .failed(.expired))
    }

    @Test func anUnreachableIssuerIsPolledWithExponentialBackOff() {
        var polling = DevicePolling(interval: 5, expiresIn: 600)
        #expect(polling.answered(.failure(.unreachable("refused")), elapsed: 5) == .wait(seconds: 10))
        #expect(polling.answered(.failure(.unreachable("refused")), elapsed: 15) == .wait(seconds: 20))
        #expect(polling.answered(.failure(.unreachable("refused")), elapsed: 35) == .wait(seconds: 40))
        #expect(polling.answered(.failure(.unreachable("refused")), elapsed: 75) == .wait(seconds: 60))
        // An answer resets the back-off.
        #expect(polling.answered(refused("authorization_pending"), elapsed: 135) == .wait(seconds: 5))
        var short = DevicePolling(interval: 5, expiresIn: 20)
        #expect(short.answered(.failure(.unreachable("refused")), elapsed: 15) == .failed(.unreachable("refused")))
    }

    /// A hostile or broken issuer's numbers are cut to an hour and a day, so that no sum overflows.
    @Test func hugeOrNegativeNumbersFromTheIssuerAreBounded() {
        var huge = DevicePolling(interval: .max, expiresIn: .max)
        #expect(huge.interval == DevicePolling.maximumInterval)
        #expect(huge.answered(refused("slow_down"), elapsed: 0) == .wait(seconds: DevicePolling.maximumInterval))
        #expect(huge.answered(.failure(.unreachable("down")), elapsed: 0) == .wait(seconds: 60))
        var negative = DevicePolling(interval: -5, expiresIn: -1)
        #expect(negative.interval == 1)
        #expect(negative.answered(refused("authorization_pending"), elapsed: 0) == .failed(.expired))
    }

    @Test func aTokenGrantNeverShowsItsTokens() {
        #expect("\(grant)" == "access token (300 s)")
        let login = StoredLogin(issuer: "https://i", clientID: "c", refreshToken: BearerToken("refresh-secret"))
        #expect(!"\(login)".contains("refresh-secret"))
    }

    @Test func theLoginFileIsPrivateAndRefusedWhenOthersCanReadIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("login-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let login = StoredLogin(issuer: "https://i/realms/x", clientID: "c", refreshToken: BearerToken("r+/=é"))
        try login.write(to: dir + "/login.json")
        var info = stat()
        #expect(stat(dir + "/login.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try StoredLogin.read(dir + "/login.json") == login)
        chmod(dir + "/login.json", 0o644)
        #expect(throws: OAuthError.loginExposed(path: dir + "/login.json", mode: "644")) { try StoredLogin.read(dir + "/login.json") }
        #expect(try StoredLogin.read(dir + "/absent.json") == nil)
        // Not a login record: named as such, without advice (the command line adds it).
        FileManager.default.createFile(atPath: dir + "/other.json", contents: Data("{}".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: OAuthError.notALogin(dir + "/other.json")) { try StoredLogin.read(dir + "/other.json") }
        #expect(OAuthError.notALogin(dir + "/other.json").description == "\(dir)/other.json is not a login record")
    }
}
