import Synchronization

/// A clock that stands still but for sleeps: a sleep moves it to its deadline at once. A retry
/// budget counted on it holds the back-offs alone, whatever the machine's load makes of the
/// attempts between them, and a test of it does not wait for them.
final class SleepOnlyClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    /// The time slept in all.
    var slept: Duration { now.offset }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = Swift.max($0, deadline) }
        await Task.yield()
    }
}
