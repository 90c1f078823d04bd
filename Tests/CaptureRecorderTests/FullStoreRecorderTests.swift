import CaptureCore
import CaptureSensors
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureRecorder

/// The recorder (its driver, in process) with `ride.detect: auto` on a store that fills up with
/// rides the collector has not taken during a ride (issue 41, item 6): the ride ends by the full
/// store, the recorder stays up, armed and waiting for room; once room is made the ride's end
/// lands and motion begins the next ride, in the same run.
@Suite struct FullStoreRecorderTests {
    let directory: Scratch

    init() throws { directory = try Scratch.make("full-store") }

    /// `count` accelerometer samples from `from`, 1 ms apart, shaken (±2 m/s²) as riding does.
    static func shaking(_ count: Int, from: Int64) -> [Sample] {
        (0..<count).map { .motion(.accelerometer, MotionSample(timestamp: from + Int64($0), x: 0, y: 0, z: 9.81 + ($0 % 2 == 0 ? 2 : -2))) }
    }

    static func ride(_ recorder: Recorder) -> RideStatus? { recorder.command(ControlRequest(command: .status)).status?.ride }

    @Test func aStoreFilledDuringARideIsWaitedOutAndRecordingGoesOnOnceThereIsRoom() throws {
        let now = WallClock.now()
        var unsent: [Int64] = []
        do {
            let store = try Store(directory: directory.path)
            for index in 0..<4 {
                unsent.append(try RecorderRoomTests.ride(store, end: now - 60_000 * Int64(5 - index), samples: 4_000, delivered: false))
            }
        }
        let budget = try Store(directory: directory.path).databaseSize() + 16 * 4096
        let store = try Store(directory: directory.path, maximumSize: budget)
        let feed = FeedSource()
        let recorder = Recorder(
            directory: directory.path, store: store, sources: [feed], flushInterval: 100,
            retention: RetentionPolicy(keepUploadedDays: nil, maxStoreSize: ByteSize(bytes: budget)!), ceiling: budget,
            ride: RideSettings(detect: .auto, endAfterStill: 60_000, preRoll: 1_000, minDistance: 0), hostSynchronized: true)
        try recorder.listen()
        try recorder.arm(modality: .bicycle)
        let thread = Thread { _ = recorder.run(handlingSignals: false) }
        thread.start()
        defer { recorder.abandon() }
        #expect(Self.ride(recorder)?.state == .armed, "room at the start")
        // Riding until the store is full.
        var round = 0
        while Self.ride(recorder)?.state != .waitingForRoom, !thread.isFinished, round < 200 {
            feed.feed(Self.shaking(2_000, from: WallClock.now()))
            usleep(100_000)
            round += 1
        }
        let waiting = try #require(Self.ride(recorder))
        #expect(waiting.state == .waitingForRoom && waiting.reason == "store-full", "\(waiting)")
        #expect(!thread.isFinished && recorder.inspect(\.failure) == nil, "the recorder stays up")
        let ride = try #require(waiting.lastRide)
        #expect(ride > unsent.last ?? 0)
        #expect(store.fileSize() <= budget, "\(store.fileSize()) of \(budget)")
        // Riding on while it waits: nothing more goes in.
        let size = store.fileSize()
        for _ in 0..<10 {
            feed.feed(Self.shaking(2_000, from: WallClock.now()))
            usleep(100_000)
        }
        #expect(Self.ride(recorder)?.state == .waitingForRoom)
        #expect(store.fileSize() <= size, "the store grew while waiting")
        #expect(try store.measurements().map(\.id).filter { $0 > ride }.isEmpty, "no ride began while waiting")
        // Room: three rides deleted by hand (another process); the ride's end lands and the
        // recorder arms again by itself once a sixteenth of the budget is free.
        let other = try Store(directory: directory.path)
        for id in unsent.prefix(3) { try other.deleteMeasurement(id, directory: directory.path) }
        let armed = waitUntil(seconds: 15) { Self.ride(recorder)?.state == .armed }
        let inUse = try other.bytesInUse()
        let staged = recorder.command(ControlRequest(command: .status)).status?.staged
        #expect(armed, "\(String(describing: Self.ride(recorder))): \(inUse) bytes in use of \(budget), staged \(String(describing: staged))")
        #expect(try store.measurement(ride).status == .finished, "the ride's end is in")
        #expect(try store.rideCounts()[.endedByFullStore] == 1)
        #expect(Set(try store.measurements().map(\.id)).isSuperset(of: unsent.suffix(1)), "nothing unsent went")
        // Motion begins the next ride, in the same run.
        var recording = false
        for _ in 0..<50 where !recording {
            feed.feed(Self.shaking(200, from: WallClock.now()))
            usleep(100_000)
            recording = Self.ride(recorder)?.state == .recording
        }
        #expect(recording)
        #expect(recorder.command(ControlRequest(command: .status)).status.map { $0.measurement > ride } == true)
        recorder.shutdown()
        #expect(waitUntil { thread.isFinished })
        #expect(recorder.inspect(\.failure) == nil)
    }
}
