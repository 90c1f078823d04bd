import AsyncHTTPClient
import CaptureUpload
import Foundation
import Glibc
import NIOCore
import Synchronization
import Testing

/// A collector that is down or misspelt: reported at once, in the same words everywhere, within
/// a short budget while it has never answered (issue 32, item 1).
@Suite struct ConnectionProblemTests {
    /// Nothing listens on port 1 of the loopback address.
    static let nobody = "http://127.0.0.1:1/"

    @Test func networkErrorsReadTheSameWhoeverAsks() {
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)")
        #expect(ConnectionProblem(refused, url: Self.nobody).description == "connection refused (127.0.0.1:1)")
        #expect(
            ConnectionProblem(HTTPClientError.connectTimeout, url: "https://collector.example/api/v4").description
                == "timed out (collector.example:443)")
        #expect(
            ConnectionProblem(IOError(errnoCode: EHOSTUNREACH, reason: "connect"), url: "http://10.0.0.9:8080/").description
                == "host unreachable (10.0.0.9:8080)")
        #expect(ConnectionProblem(kind: .noSuchHost, target: "collector.example").description == "no such host (collector.example)")
    }

    @Test func theProbesSayConnectionRefusedWithTheAddress() async {
        #expect(await Delivery.probe(Self.nobody) == "connection refused (127.0.0.1:1)")
        #expect(
            await Delivery.tokenProbe(Self.nobody, token: BearerToken("t")) == .unreachable("connection refused (127.0.0.1:1)"))
    }

    /// The whole budget is ten minutes, the one for a collector never reached twenty seconds: the
    /// run gives up within them after retrying (a connection attempt that waited for its deadline,
    /// 60 s, would have used them up in one attempt, with no retry), and its first report names
    /// the URL. The budgets are counted on a clock that moves only when a back-off sleeps, so the
    /// test does not wait for them and the machine's load cannot spend them (on the wall clock, in
    /// the whole parallel suite on two cores, the first refused connection was seen to take more
    /// than twenty seconds).
    @Test func aCollectorNeverReachedIsGivenUpWithinTheShortBudgetAndNamedAtOnce() async throws {
        let device = try Device()
        let first = try device.ride(fixes: 5)
        let second = try device.ride(fixes: 5, base: 1_700_000_100_000)
        let policy = UploadStateMachine.RetryPolicy(
            initialDelay: 50, maximumDelay: 500, budget: 600_000, unansweredBudget: 20_000)
        var options = UploadRun.Options(appVersion: "0.1.0", retryPolicy: policy)
        let clock = SleepOnlyClock()
        options.clock = clock
        let run = UploadRun(
            store: device.store, dataDirectory: device.directory, collectorURL: Self.nobody,
            authenticator: StaticToken(BearerToken("t"), origin: "/test/token"),
            options: options)
        let retries = RetryLog()
        let report = try await run.run(.waiting(includingSkipped: false), observer: retries)
        #expect(report.results.map(\.measurement) == [first, second])
        #expect(report.results.map(\.outcome) == [.failed, .failed])
        let problems = retries.problems
        #expect(problems.count >= 1, "\(problems)")
        #expect(
            problems.first
                == "the collector at \(Self.nobody) does not answer: pre-request: connection refused (127.0.0.1:1)")
        #expect(problems.dropFirst().allSatisfy { $0 == "pre-request: connection refused (127.0.0.1:1)" }, "\(problems)")
        let reason = try #require(report.results[0].reason)
        #expect(reason.hasSuffix("the collector never answered: pre-request: connection refused (127.0.0.1:1)"), "\(reason)")
        // Both measurements together waited out the short budget, never past it: a back-off that
        // would end beyond it (at most 500 ms, ±20 %) is not slept.
        #expect(clock.slept > .seconds(19) && clock.slept <= .seconds(20), "\(clock.slept)")
        // The second measurement gets the short budget too (the collector never answered in the run).
        #expect(
            report.results[1].reason?.hasSuffix("the collector never answered: pre-request: connection refused (127.0.0.1:1)") == true,
            "\(report.results[1])")
    }

    @Test func theShortBudgetHoldsOnlyUntilTheCollectorAnswers() {
        let policy = UploadStateMachine.RetryPolicy(
            initialDelay: 100, maximumDelay: 100, budget: 600_000, unansweredBudget: 1_000)
        var never = UploadStateMachine(totalLength: 10, policy: policy, random: FixedRandom(value: 0))
        _ = never.start(session: nil)
        guard case .done(.failed(let reason)) = never.transportFailed("refused", elapsed: 960) else {
            Issue.record("a collector never reached is retried past the short budget")
            return
        }
        #expect(reason == "gave up after 1 attempt(s) in 0 s, the collector never answered: pre-request: refused")

        var answered = UploadStateMachine(totalLength: 10, policy: policy, random: FixedRandom(value: 0))
        _ = answered.start(session: nil)
        _ = answered.preRequestAnswered(.init(status: 503), elapsed: 0)
        _ = answered.backOffElapsed(elapsed: 100)
        #expect(answered.transportFailed("refused", elapsed: 5_000) == .backOff(milliseconds: 50))

        // An earlier upload of the run saw an answer: the whole budget from the start; one that
        // spent the short budget: none left.
        var later = UploadStateMachine(totalLength: 10, policy: policy, answered: true, random: FixedRandom(value: 0))
        _ = later.start(session: nil)
        #expect(later.transportFailed("refused", elapsed: 5_000) == .backOff(milliseconds: 50))
        var spent = UploadStateMachine(totalLength: 10, policy: policy, unansweredSpent: 1_000, random: FixedRandom(value: 0))
        _ = spent.start(session: nil)
        #expect(spent.transportFailed("refused", elapsed: 0) != .backOff(milliseconds: 50))
    }
}

/// Remembers the problems a run reported with its retries.
final class RetryLog: UploadRunObserver {
    private let log = Mutex<[String]>([])
    func transferRetrying(after milliseconds: Int64, problem: String) { log.withLock { $0.append(problem) } }
    var problems: [String] { log.withLock { $0 } }
}
