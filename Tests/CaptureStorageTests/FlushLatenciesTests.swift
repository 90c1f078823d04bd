import CaptureStorage
import Testing

/// The recorder's own flushes timed (`capture status --json`'s `flushes`, the heartbeat's
/// medium latency): the last 64, nothing before the first.
struct FlushLatenciesTests {
    @Test func theLastFlushesOnlyAreKept() throws {
        var latencies = FlushLatencies()
        #expect(latencies.figures == nil)
        latencies.note(0.004)
        #expect(latencies.figures == StorageLatency(latencies: [0.004]))
        // A slow card's flushes, then 64 fast ones: the slow ones are out of the window.
        for _ in 0..<10 { latencies.note(0.5) }
        #expect(try #require(latencies.figures).maxMilliseconds == 500)
        for _ in 0..<FlushLatencies.capacity { latencies.note(0.002) }
        let figures = try #require(latencies.figures)
        #expect(figures.rounds == FlushLatencies.capacity && figures.maxMilliseconds == 2)
        latencies.note(0.03)
        #expect(try #require(latencies.figures).rounds == FlushLatencies.capacity)
        #expect(try #require(latencies.figures).maxMilliseconds == 30)
    }
}
