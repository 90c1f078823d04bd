import CaptureCore
import CaptureUpload
import Testing

/// A generator that always returns the same value, so back-off delays are exact.
struct FixedRandom: RandomNumberGenerator, Sendable {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

typealias Machine = UploadStateMachine
typealias R = UploadStateMachine.Response

let url = "http://127.0.0.1:1/measurements/(0123456789abcdefghijklmnopqrstuv)/"
let policy = Machine.RetryPolicy(initialDelay: 100, maximumDelay: 1000, budget: 10_000, maximumRestarts: 3)

func machine(_ total: Int64 = 1000, chunk: Int64? = nil) -> Machine {
    Machine(totalLength: total, chunkSize: chunk, policy: policy, random: FixedRandom(value: 0))
}

/// A machine with a session open and the whole file in flight.
func putting(_ total: Int64 = 1000, chunk: Int64? = nil) -> Machine {
    var m = machine(total, chunk: chunk)
    _ = m.start(session: nil)
    _ = m.preRequestAnswered(R(status: 200, location: url), elapsed: 0)
    return m
}

@Suite struct PreRequestTests {
    @Test func startsWithPreRequestWithoutSession() {
        var m = machine()
        #expect(m.start(session: nil) == .preRequest)
    }

    @Test func startsWithStatusQueryWithStoredSession() {
        var m = machine()
        #expect(m.start(session: url) == .queryStatus(session: url))
    }

    @Test func sessionCreatedPutsWholeFileFromZero() {
        var m = machine()
        _ = m.start(session: nil)
        #expect(m.preRequestAnswered(R(status: 200, location: url), elapsed: 0) == .put(session: url, range: 0...999))
        #expect(m.session == url)
    }

    @Test func locationIsUsedVerbatim() {
        var m = machine()
        _ = m.start(session: nil)
        let odd = "https://Example.com:8443/api/v4/measurements/(abc)/?x=1"
        #expect(m.preRequestAnswered(R(status: 200, location: odd), elapsed: 0) == .put(session: odd, range: 0...999))
    }

    @Test func missingLocationFails() {
        var m = machine()
        _ = m.start(session: nil)
        guard case .done(.failed) = m.preRequestAnswered(R(status: 200), elapsed: 0) else {
            Issue.record("expected failure")
            return
        }
    }

    @Test(arguments: [
        (409, Machine.Outcome.alreadyStored),
        (412, .skipped(reason: "too few")),
        (401, .unauthorized(reason: "HTTP 401: too few")),
        (400, .failed(reason: "pre-request: HTTP 400: too few")),
        (413, .failed(reason: "pre-request: HTTP 413: too few")),
        (422, .failed(reason: "pre-request: HTTP 422: too few")),
        (428, .failed(reason: "pre-request: HTTP 428: too few")),
    ])
    func finalAnswers(status: Int, outcome: Machine.Outcome) {
        var m = machine()
        _ = m.start(session: nil)
        #expect(m.preRequestAnswered(R(status: status, reason: "too few"), elapsed: 0) == .done(outcome))
        #expect(m.outcome == outcome)
    }

    @Test(arguments: [500, 502, 503, 429])
    func serverErrorsRetryThePreRequest(status: Int) {
        var m = machine()
        _ = m.start(session: nil)
        #expect(m.preRequestAnswered(R(status: status), elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 50) == .preRequest)
    }

    @Test func networkErrorRetriesThePreRequest() {
        var m = machine()
        _ = m.start(session: nil)
        #expect(m.transportFailed("refused", elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 50) == .preRequest)
    }

    @Test func emptyFileFailsAtOnce() {
        var m = machine(0)
        guard case .done(.failed) = m.start(session: nil) else {
            Issue.record("expected failure")
            return
        }
    }
}

@Suite struct PutTests {
    @Test(arguments: [201, 200])
    func completeIsUploaded(status: Int) {
        var m = putting()
        #expect(m.putAnswered(R(status: status), elapsed: 0) == .done(.uploaded))
        #expect(m.acknowledged == 1000)
    }

    @Test func resumeIncompleteContinuesAtRangeEndPlusOne() {
        var m = putting()
        #expect(m.putAnswered(R(status: 308, range: "bytes=0-399"), elapsed: 0) == .put(session: url, range: 400...999))
        #expect(m.acknowledged == 400)
    }

    @Test func resumeIncompleteWithoutRangeAsksTheServer() {
        var m = putting()
        #expect(m.putAnswered(R(status: 308), elapsed: 0) == .queryStatus(session: url))
    }

    @Test(arguments: [nil, "bytes=abc", "bytes=0--1"])
    func aCollectorThatNeverMovesItsOffsetIsRetriedWithinTheBudgetNotForever(range: String?) {
        var m = putting()
        // The first 308 without progress is followed at once, as usual (asking when the Range
        // is unreadable).
        let first = m.putAnswered(R(status: 308, range: range), elapsed: 0)
        if range == "bytes=0--1" {
            #expect(first == .put(session: url, range: 0...999))
        } else {
            #expect(first == .queryStatus(session: url))
            #expect(m.statusAnswered(R(status: 308, range: range), elapsed: 0) == .put(session: url, range: 0...999))
        }
        // The second backs off; then every round backs off longer until the budget is spent.
        #expect(m.putAnswered(R(status: 308, range: range), elapsed: 0) == .backOff(milliseconds: 50))
        var elapsed: Int64 = 0
        var action = m.backOffElapsed(elapsed: 50)
        for _ in 0..<1000 {
            switch action {
            case .queryStatus: action = m.statusAnswered(R(status: 308, range: range), elapsed: elapsed)
            case .put: action = m.putAnswered(R(status: 308, range: range), elapsed: elapsed)
            case .backOff(let delay):
                elapsed += delay
                action = m.backOffElapsed(elapsed: elapsed)
            case .preRequest, .done, .renewToken: break
            }
            if case .done = action { break }
        }
        guard case .done(.failed(let reason)) = action else {
            Issue.record("still going: \(action)")
            return
        }
        #expect(reason.contains("HTTP 308 without progress"), "\(reason)")
        #expect(elapsed <= policy.budget)
    }

    @Test func progressAfterAStallResetsIt() {
        var m = putting(1000, chunk: 100)
        #expect(m.putAnswered(R(status: 308), elapsed: 0) == .queryStatus(session: url))
        #expect(m.statusAnswered(R(status: 308, range: "bytes=0-99"), elapsed: 0) == .put(session: url, range: 100...199))
        #expect(m.putAnswered(R(status: 308), elapsed: 0) == .queryStatus(session: url))
    }

    @Test func chunksFollowTheServersRange() {
        var m2 = machine(1000, chunk: 300)
        _ = m2.start(session: nil)
        #expect(m2.preRequestAnswered(R(status: 200, location: url), elapsed: 0) == .put(session: url, range: 0...299))
        #expect(m2.putAnswered(R(status: 308, range: "bytes=0-299"), elapsed: 0) == .put(session: url, range: 300...599))
        // The server kept less than was sent: continue from what it has.
        #expect(m2.putAnswered(R(status: 308, range: "bytes=0-499"), elapsed: 0) == .put(session: url, range: 500...799))
        #expect(m2.putAnswered(R(status: 308, range: "bytes=0-799"), elapsed: 0) == .put(session: url, range: 800...999))
        #expect(m2.putAnswered(R(status: 201), elapsed: 0) == .done(.uploaded))
    }

    @Test(arguments: [500, 502, 503, 504, 429])
    func serverErrorsQueryStatusAfterBackOff(status: Int) {
        var m = putting()
        #expect(m.putAnswered(R(status: status), elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 50) == .queryStatus(session: url))
    }

    @Test func networkErrorQueriesStatusAfterBackOff() {
        var m = putting()
        #expect(m.transportFailed("reset", elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 50) == .queryStatus(session: url))
        #expect(m.lastProblem == "reset")
    }

    @Test func notFoundOpensANewSessionFromZero() {
        var m = putting()
        _ = m.putAnswered(R(status: 308, range: "bytes=0-99"), elapsed: 0)
        #expect(m.putAnswered(R(status: 404), elapsed: 0) == .preRequest)
        #expect(m.acknowledged == 0)
        #expect(m.session == nil)
        let other = url.replacingOccurrences(of: "0123", with: "9999")
        #expect(m.preRequestAnswered(R(status: 200, location: other), elapsed: 0) == .put(session: other, range: 0...999))
    }

    @Test func notFoundToThePreRequestIsAWrongURLNotALostSession() {
        // A collector URL with a path the collector does not serve (…/api/v4 against
        // capture-collector): no session was ever opened, so none was lost.
        var m = machine()
        _ = m.start(session: nil)
        #expect(m.preRequestAnswered(R(status: 404), elapsed: 0) == .done(.failed(reason: Machine.noEndpoint)))
        #expect(Machine.noEndpoint.contains("…/api/v4") && !Machine.noEndpoint.contains("losing"))
    }

    @Test func repeatedNotFoundBacksOffThenFails() {
        var m = putting()
        #expect(m.putAnswered(R(status: 404), elapsed: 0) == .preRequest)
        _ = m.preRequestAnswered(R(status: 200, location: url), elapsed: 0)
        #expect(m.putAnswered(R(status: 404), elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 0) == .preRequest)
        _ = m.preRequestAnswered(R(status: 200, location: url), elapsed: 0)
        #expect(m.putAnswered(R(status: 404), elapsed: 0) == .backOff(milliseconds: 100))
        #expect(m.backOffElapsed(elapsed: 0) == .preRequest)
        _ = m.preRequestAnswered(R(status: 200, location: url), elapsed: 0)
        guard case .done(.failed) = m.putAnswered(R(status: 404), elapsed: 0) else {
            Issue.record("expected failure after \(policy.maximumRestarts) restarts")
            return
        }
    }

    @Test(arguments: [
        (412, Machine.Outcome.skipped(reason: "no")),
        (401, .unauthorized(reason: "HTTP 401: no")),
        (422, .failed(reason: "upload: HTTP 422: no")),
        (400, .failed(reason: "upload: HTTP 400: no")),
        (415, .failed(reason: "upload: HTTP 415: no")),
        (301, .failed(reason: "upload: HTTP 301: no")),
    ])
    func finalAnswers(status: Int, outcome: Machine.Outcome) {
        var m = putting()
        #expect(m.putAnswered(R(status: status, reason: "no"), elapsed: 0) == .done(outcome))
    }

    @Test func skipWithoutBodyStillHasAReason() {
        var m = putting()
        guard case .done(.skipped(let reason)) = m.putAnswered(R(status: 412), elapsed: 0) else {
            Issue.record("expected skip")
            return
        }
        #expect(reason.contains("412"))
    }
}

@Suite struct StatusQueryTests {
    func querying(_ total: Int64 = 1000) -> Machine {
        var m = machine(total)
        _ = m.start(session: url)
        return m
    }

    @Test func storedIsUploaded() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 200), elapsed: 0) == .done(.uploaded))
    }

    @Test func withoutRangeUploadsFromZero() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 308), elapsed: 0) == .put(session: url, range: 0...999))
    }

    @Test func withRangeResumesAfterIt() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 308, range: "bytes=0-41"), elapsed: 0) == .put(session: url, range: 42...999))
        #expect(m.acknowledged == 42)
    }

    @Test func emptyTempFileRangeMeansZero() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 308, range: "bytes=0--1"), elapsed: 0) == .put(session: url, range: 0...999))
    }

    @Test func garbageRangeMeansZero() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 308, range: "lines=a-b"), elapsed: 0) == .put(session: url, range: 0...999))
    }

    @Test func rangeBeyondTheFileFails() {
        var m = querying()
        guard case .done(.failed) = m.statusAnswered(R(status: 308, range: "bytes=0-5000"), elapsed: 0) else {
            Issue.record("expected failure")
            return
        }
    }

    @Test func everyByteButIncompleteAsksAgainLater() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 308, range: "bytes=0-999"), elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 0) == .queryStatus(session: url))
    }

    @Test func expiredSessionOpensANewOne() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 404), elapsed: 0) == .preRequest)
    }

    @Test func serverErrorsAndNetworkErrorsAskAgain() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 503), elapsed: 0) == .backOff(milliseconds: 50))
        #expect(m.backOffElapsed(elapsed: 0) == .queryStatus(session: url))
        #expect(m.transportFailed("timeout", elapsed: 0) == .backOff(milliseconds: 100))
        #expect(m.backOffElapsed(elapsed: 0) == .queryStatus(session: url))
    }

    @Test(arguments: [(401, Machine.Outcome.unauthorized(reason: "HTTP 401"))])
    func finalAnswers(status: Int, outcome: Machine.Outcome) {
        var m = querying()
        #expect(m.statusAnswered(R(status: status), elapsed: 0) == .done(outcome))
    }

    /// §2.10: the collector answers a status query 409 for a skip condition too, so 409 is not
    /// "already stored" there: a new pre-request says what it is.
    @Test func a409ToAStatusQueryAsksThePreRequest() {
        var m = querying()
        #expect(m.statusAnswered(R(status: 409), elapsed: 0) == .preRequest)
        #expect(m.preRequestAnswered(R(status: 409), elapsed: 0) == .done(.alreadyStored))

        var skipped = querying()
        #expect(skipped.statusAnswered(R(status: 409), elapsed: 0) == .preRequest)
        #expect(skipped.preRequestAnswered(R(status: 412, reason: "too few locations"), elapsed: 0) == .done(.skipped(reason: "too few locations")))

        // A collector that answers 409 to the status query of the new session too: failed, not stored.
        var again = querying()
        _ = again.statusAnswered(R(status: 409), elapsed: 0)
        _ = again.preRequestAnswered(R(status: 200, location: url), elapsed: 0)
        guard case .done(.failed) = again.putAnswered(R(status: 409), elapsed: 0) else {
            Issue.record("expected failure")
            return
        }
        #expect(again.outcome != .alreadyStored)
    }
}

@Suite struct IllegalInputTests {
    @Test func answersWithoutARequestFailRatherThanTrap() {
        var m = machine()
        guard case .done(.failed) = m.putAnswered(R(status: 201), elapsed: 0) else {
            Issue.record("expected failure")
            return
        }
        var n = machine()
        guard case .done(.failed) = n.backOffElapsed(elapsed: 0) else {
            Issue.record("expected failure")
            return
        }
    }
}

@Suite struct RangeParsingTests {
    @Test(arguments: [
        ("bytes=0-41", Int64?.some(42)), ("bytes=0--1", 0), ("bytes=0-0", 1), (" bytes=0-99 ", 100),
        ("bytes=0-", nil), ("0-41", nil), ("", nil), ("bytes=0-x", nil),
    ])
    func parses(header: String, next: Int64?) {
        #expect(Machine.nextByte(fromRange: header) == next)
    }
}
