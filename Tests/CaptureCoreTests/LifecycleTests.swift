import Testing
@testable import CaptureCore

@Suite struct LifecycleTests {
    @Test func startRecordsStartThenModalityAtTheSameTime() throws {
        var lifecycle = Lifecycle()
        let events = try lifecycle.start(at: 1_000, modality: .bicycle)
        #expect(events == [
            Event(timestamp: 1_000, type: .lifecycleStart),
            Event(timestamp: 1_000, type: .modalityTypeChange, value: "BICYCLE"),
        ])
        #expect(lifecycle.state == .capturing(track: 1))
    }
}
