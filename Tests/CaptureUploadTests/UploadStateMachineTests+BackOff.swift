import CaptureUpload
import Testing

// The upload state machine backing off. The shared helpers (machine(), putting(), policy, R)
// are in UploadStateMachineTests.swift.

@Suite struct BackOffTests {
    /// 403 (the collector while unavailable), 429 and 503 are tried again later (§2.10).
    @Test(arguments: [403, 429, 503])
    func retryLaterAnswersBackOff(status: Int) {
        var pre = machine()
        _ = pre.start(session: nil)
        guard case .backOff = pre.preRequestAnswered(R(status: status), elapsed: 0) else {
            Issue.record("a pre-request answered \(status) should back off")
            return
        }
        var m = putting()
        guard case .backOff = m.putAnswered(R(status: status), elapsed: 0) else {
            Issue.record("a PUT answered \(status) should back off")
            return
        }
    }

    @Test func retryAfterIsTheLeastWaitWithinTheBudget() {
        var m = putting()
        #expect(m.putAnswered(R(status: 503, retryAfter: 7_000), elapsed: 0) == .backOff(milliseconds: 7_000))
        #expect(m.lastProblem.hasSuffix("(Retry-After 7 s)"), "\(m.lastProblem)")
        // Shorter than the back-off: the back-off stands.
        var short = putting()
        guard case .backOff(let delay) = short.putAnswered(R(status: 429, retryAfter: 1), elapsed: 0) else {
            Issue.record("expected a back-off")
            return
        }
        #expect(delay >= 50 && delay <= 100)
        // Beyond the budget (10 s): failed now, not parked past it.
        var late = putting()
        guard case .done(.failed(let reason)) = late.putAnswered(R(status: 429, retryAfter: 60_000), elapsed: 0) else {
            Issue.record("expected failure")
            return
        }
        #expect(reason.hasSuffix("HTTP 429 (Retry-After 60 s)"), "\(reason)")
    }

    @Test func retryAfterHeadersAreSecondsOrADate() {
        let now: Int64 = 1_700_000_000_000  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(Machine.retryAfter("120", now: now) == 120_000)
        #expect(Machine.retryAfter(" 0 ", now: now) == 0)
        #expect(Machine.retryAfter("Tue, 14 Nov 2023 22:13:27 GMT", now: now) == 7_000)
        #expect(Machine.retryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0, "a date past is now")
        #expect(Machine.retryAfter("999999999999", now: now) == 86_400_000, "at most a day")
        #expect(Machine.retryAfter("99999999999999999999999", now: now) == 86_400_000)
        #expect(Machine.retryAfter("soon", now: now) == nil)
        #expect(Machine.retryAfter("-5", now: now) == nil)
        #expect(Machine.retryAfter(nil, now: now) == nil)
    }

    @Test func delaysDoubleUpToTheCap() {
        let p = Machine.RetryPolicy(initialDelay: 100, maximumDelay: 1000, budget: 1_000_000)
        #expect((1...6).map { p.delay(afterFailures: $0, random: 0) } == [50, 100, 200, 400, 500, 500])
        #expect((1...6).map { p.delay(afterFailures: $0, random: 0.999_999) } == [99, 199, 399, 799, 999, 999])
    }

    @Test func jitterComesFromTheInjectedSource() {
        var a = Machine(totalLength: 10, policy: policy, random: FixedRandom(value: 0))
        var b = Machine(totalLength: 10, policy: policy, random: FixedRandom(value: .max))
        _ = a.start(session: url)
        _ = b.start(session: url)
        #expect(a.transportFailed("x", elapsed: 0) == .backOff(milliseconds: 50))
        #expect(b.transportFailed("x", elapsed: 0) == .backOff(milliseconds: 99))
    }

    @Test func progressResetsTheBackOff() {
        var m = machine()
        _ = m.start(session: url)
        _ = m.transportFailed("x", elapsed: 0)
        _ = m.backOffElapsed(elapsed: 0)
        #expect(m.transportFailed("x", elapsed: 0) == .backOff(milliseconds: 100))
        _ = m.backOffElapsed(elapsed: 0)
        _ = m.statusAnswered(R(status: 308, range: "bytes=0-10"), elapsed: 0)
        #expect(m.transportFailed("x", elapsed: 0) == .backOff(milliseconds: 50))
    }

    @Test func theBudgetEndsRetries() {
        var m = machine()
        _ = m.start(session: url)
        #expect(m.transportFailed("refused", elapsed: 9_940) == .backOff(milliseconds: 50))
        _ = m.backOffElapsed(elapsed: 10_010)
        guard case .done(.failed(let reason)) = m.transportFailed("refused", elapsed: 10_010) else {
            Issue.record("expected failure")
            return
        }
        #expect(reason.contains("refused"))
    }
}
