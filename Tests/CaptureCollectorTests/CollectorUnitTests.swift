@testable import CaptureCollector
import Foundation
import Testing

@Suite struct ContentRangeTests {
    @Test func parsesDataAndQueryRanges() {
        #expect(ContentRange("bytes 0-9/10") == .bytes(from: 0, to: 9, total: 10))
        #expect(ContentRange("bytes */10") == .query(total: 10))
        for bad in ["bytes */*", "bytes 5-4/10", "bytes 0-9", "bytes -1-9/10", "0-9/10", "bytes 0-9/x", ""] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct FaultPlanTests {
    @Test func aPlanFileMayNameAnySubsetOfKeys() throws {
        let plan = try JSONDecoder().decode(FaultPlan.Configuration.self, from: Data(#"{"dropAfterBytes":[100],"rate":0.1}"#.utf8))
        var expected = FaultPlan.Configuration()
        expected.dropAfterBytes = [100]
        expected.rate = 0.1
        #expect(plan == expected)
    }

    let body = FaultPlan.Request(contentLength: 1000, isFinal: false)
    let final = FaultPlan.Request(contentLength: 1000, isFinal: true)
    let query = FaultPlan.Request(contentLength: 0, isFinal: false)

    @Test func countedFaultsHitTheNextEligibleRequests() {
        var configuration = FaultPlan.Configuration()
        configuration.dropAfterBytes = [400, 5000]
        configuration.serverErrors = 1
        configuration.omitRange = 1
        configuration.loseFinal = 1
        let plan = FaultPlan(configuration)
        #expect(plan.decide(for: query) == .other(.omitRange))
        #expect(plan.decide(for: body) == .drop(after: 400))
        #expect(plan.decide(for: body) == .drop(after: 999))  // never past the body
        #expect(plan.decide(for: final) == .other(.serverError))
        #expect(plan.decide(for: query) == nil)
        #expect(plan.decide(for: final) == .other(.loseFinal))
        #expect(plan.decide(for: final) == nil)
    }

    @Test func randomFaultsRepeatWithTheSeed() {
        var configuration = FaultPlan.Configuration()
        configuration.rate = 0.5
        configuration.seed = 42
        let a = FaultPlan(configuration)
        let b = FaultPlan(configuration)
        let first = (0..<200).map { _ in a.decide(for: body) }
        #expect(first == (0..<200).map { _ in b.decide(for: body) })
        let faults = first.compactMap { $0 }.count
        #expect((60...140).contains(faults))
        #expect(!first.contains(.other(.loseFinal)))  // not eligible: not a final PUT
    }
}

@Suite struct ReceiveBufferLimitTests {
    /// One upload reads as NIO would (64 KiB); many share the budget, in powers of two, never
    /// below 4 KiB; the buffers all may hold at once stay within the budget.
    @Test func theLargestReadShrinksWithTheConnections() {
        let expected = [0: 65536, 1: 65536, 16: 65536, 17: 32768, 32: 32768, 33: 16384, 64: 16384, 65: 8192,
                        128: 8192, 129: 4096, 200: 4096, 10_000: 4096]
        for (connections, read) in expected {
            #expect(ReceiveBufferLimit.maximumRead(connections: connections) == read, "\(connections) connections")
        }
        for connections in 1...128 {
            let held = connections * ReceiveBufferLimit.buffersPerConnection * ReceiveBufferLimit.maximumRead(connections: connections)
            #expect(held <= ReceiveBufferLimit.budget, "\(connections) connections")
        }
    }
}
