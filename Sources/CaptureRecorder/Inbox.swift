import CaptureCore
import CaptureSensors
import Synchronization

/// Samples a source has handed over, in its order, each read with the time it arrived: a live
/// receiver's fix is held against the host clock at arrival (``GNSSClock``). At most `capacity`
/// samples are held; the ones beyond are dropped (the newest: what is held stays continuous)
/// and counted.
///
/// A source's thread never waits for the recorder: it puts its samples here, and the recorder
/// takes them in before every event it handles. Four IIO devices woken at once by the same clock
/// would otherwise queue on the recorder's lock, each wait a wake-up (measured: about 3 a second
/// under `bench-iio`).
final class Inbox: Sendable {
    struct Contents {
        var reads: [(samples: [Sample], arrived: Int64)] = []
        var held = 0
        var dropped = 0
    }

    let capacity: Int
    private let contents = Mutex(Contents())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Holds one read that arrived at `now` (a simulated device says when it was due).
    func put(_ samples: [Sample], arrived now: Int64 = WallClock.now()) {
        contents.withLock { contents in
            let kept = min(samples.count, capacity - contents.held)
            if kept > 0 {
                contents.reads.append((kept == samples.count ? samples : Array(samples.prefix(kept)), now))
                contents.held += kept
            }
            contents.dropped += samples.count - kept
        }
    }

    func take() -> Contents {
        contents.withLock { contents in
            defer { contents = Contents() }
            return contents
        }
    }
}
