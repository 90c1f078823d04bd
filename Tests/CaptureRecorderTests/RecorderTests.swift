import CaptureCore
import CaptureSensors
import CaptureStorage
import Foundation
import Glibc
import Synchronization
import Testing

@testable import CaptureRecorder

/// A source the test feeds by hand: it delivers what is pushed, on the recorder's thread for
/// it, until the recorder tells it to stop.
final class FeedSource: SampleSource, @unchecked Sendable {
    let name: String
    private let lock = NSLock()
    private var queue: [Sample] = []
    private var deliveredCount = 0
    private var ended = false

    init(name: String = "feed:test") {
        self.name = name
    }

    func push(_ samples: [Sample]) { lock.withLock { queue += samples } }

    var delivered: Int { lock.withLock { deliveredCount } }
    var hasEnded: Bool { lock.withLock { ended } }

    /// Pushes `samples` and waits until all of them went through `deliver`.
    func feed(_ samples: [Sample]) {
        let target = delivered + samples.count
        push(samples)
        #expect(waitUntil { self.delivered >= target }, "the recorder did not take the samples")
    }

    func run(into sink: any SampleSink) throws {
        defer { lock.withLock { ended = true } }
        while !sink.stop.isStopped {
            let batch = lock.withLock {
                let batch = queue
                queue = []
                return batch
            }
            for sample in batch {
                sink.deliver([sample])
                lock.withLock { deliveredCount += 1 }
            }
            usleep(1_000)
        }
    }
}

/// A source that fails at once.
struct FailingSource: SampleSource {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the device vanished" }
    }
    let name = "broken:test"
    func run(into sink: any SampleSink) throws { throw Broken() }
}

/// Polls `condition` every 10 ms for up to `seconds`.
func waitUntil(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

func acceleration(_ count: Int, from time: Int64 = WallClock.now()) -> [Sample] {
    (0..<count).map { .motion(.accelerometer, MotionSample(timestamp: time + Int64($0), x: 0.1, y: 0.2, z: 9.81)) }
}

/// A recorder over a temporary store and in-process sources, its `run()` on a thread of its
/// own (holding the recorder lock); no process is spawned and no signal handler installed.
final class RecorderHarness: @unchecked Sendable {
    let directory: String
    let store: Store
    let recorder: Recorder
    let feed = FeedSource()
    let measurement: Int64
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: StoreError??

    init(
        flushInterval: Int64, extraSources: [any SampleSource] = [], inboxCapacity: Int = Recorder.defaultInboxCapacity,
        board: String? = nil, indicator: IndicatorLEDs? = nil, button: ButtonReader? = nil
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-rec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try Store(directory: directory)
        recorder = Recorder(
            directory: directory, store: store, sources: [feed] + extraSources, flushInterval: flushInterval,
            inboxCapacity: inboxCapacity, board: board, indicator: indicator, button: button)
        try recorder.listen()
        measurement = try recorder.startNew(modality: .bicycle)
        // The recorder lock is held while run() runs, as a recorder process holds it, so that
        // RecorderControl sees a running recorder.
        let locked = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            let held = try? RecorderLock(directory: directory)
            locked.signal()
            let failure = recorder.run(handlingSignals: false)
            _ = consume held
            lock.withLock { result = .some(failure) }
            finished.signal()
        }
        thread.start()
        locked.wait()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: recorder.runtime.path)
    }

    /// Sends a command as the control socket would.
    @discardableResult
    func command(_ command: ControlRequest.Command, modality: Modality? = nil) -> ControlReply {
        recorder.command(ControlRequest(command: command, modality: modality))
    }

    /// Waits for `run()` to return; its failure, or `nil` after a clean stop.
    func waitForEnd(seconds: Int = 10) -> StoreError?? {
        guard finished.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return lock.withLock { result }
    }

    /// What is durable: in the database, and staged in the flush log (read in that order, as
    /// `capture status` does, so that a move in between is missed rather than counted twice).
    func committed() throws -> SampleCounts {
        let stored = try store.counts(of: measurement)
        return stored + (command(.status).status?.staged ?? SampleCounts())
    }
}

@Suite("The recorder's flush and thread logic, in process")
struct RecorderTests {
    /// Issue 42: a source that records nothing fails loudly: the run ends, the measurement it
    /// began is deleted (never delivered) and the recorder says why.
    @Test func aRunWhoseEverySourceFailsBeforeItsFirstSampleEndsAndDiscardsItsMeasurement() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-rec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try Store(directory: directory)
        let recorder = Recorder(directory: directory, store: store, sources: [FailingSource()], flushInterval: 60_000)
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: recorder.runtime.path)
        }
        try recorder.listen()
        let id = try recorder.startNew(modality: .bicycle)
        let ended = DispatchSemaphore(value: 0)
        Thread {
            _ = recorder.run(handlingSignals: false)
            ended.signal()
        }.start()
        let endedByItself = ended.wait(timeout: .now() + 10) == .success
        if !endedByItself {
            recorder.command(ControlRequest(command: .stop))
            ended.wait()
        }
        #expect(endedByItself, "the recorder went on with every source failed")
        #expect(recorder.nothingRecorded == ["broken:test: the device vanished"])
        #expect(throws: StoreError.measurementNotFound(id)) { try store.measurement(id) }
        #expect(try store.measurements().isEmpty)
        #expect(
            "\(RecorderFailure.nothingRecorded(sources: ["broken:test: the device vanished"]))"
                == "nothing was recorded: every source failed before its first sample (broken:test: the device vanished); "
                + "the measurement was discarded, not delivered")
    }

    @Test func nothingIsCommittedBeforeTheFlushIntervalEnds() throws {
        let harness = try RecorderHarness(flushInterval: 60_000)
        defer { harness.command(.stop) }
        harness.feed.feed(acceleration(25))
        #expect(try harness.committed().accelerometer == 0)
        #expect(harness.command(.status).status?.pendingSamples == 25)
        #expect(harness.command(.status).status?.sources.first?.samples == 25)
    }

    @Test func eachFlushIntervalCommitsWhatArrivedWithoutACommand() throws {
        let harness = try RecorderHarness(flushInterval: 100)
        defer { harness.command(.stop) }
        harness.feed.feed(acceleration(10))
        #expect(try waitUntil { try harness.committed().accelerometer == 10 })
        harness.feed.feed(acceleration(5, from: WallClock.now() + 1_000))
        #expect(try waitUntil { try harness.committed().accelerometer == 15 })
        #expect(harness.command(.status).status?.pendingSamples == 0)
        #expect(harness.command(.status).status?.state == .capturing)
    }

    @Test func lifecycleCommandsCommitWhatCameBeforeThem() throws {
        let harness = try RecorderHarness(flushInterval: 60_000)
        harness.feed.feed(acceleration(5))
        let paused = harness.command(.pause)
        #expect(paused.ok && paused.status?.state == .paused)
        // Committed by the pause itself, not by a flush (the interval is a minute).
        #expect(try harness.committed().accelerometer == 5)
        #expect(try harness.store.measurement(harness.measurement).status == .paused)

        harness.feed.feed(acceleration(3))
        #expect(harness.command(.status).status?.droppedWhilePaused == 3)

        #expect(harness.command(.resume).status?.track == 2)
        harness.feed.feed(acceleration(4))
        let changed = harness.command(.modality, modality: .walking)
        #expect(changed.ok && changed.status?.modality == .walking && changed.outcome == .changed)
        // The modality in force again: nothing recorded, and the reply says so.
        let same = harness.command(.modality, modality: .walking)
        #expect(same.ok && same.outcome == .unchanged && same.status?.modality == .walking)
        #expect(harness.command(.pause).outcome == nil, "only modality reports an outcome")
        #expect(harness.command(.resume).status?.track == 3)
        #expect(try harness.store.events(of: harness.measurement).filter { $0.type == .modalityTypeChange }.count == 2)
        #expect(try harness.committed().accelerometer == 9)
        #expect(try harness.store.counts(of: harness.measurement, track: 2).accelerometer == 4)
        #expect(try harness.store.currentModality(of: harness.measurement) == .walking)
        harness.command(.stop)
        #expect(harness.waitForEnd() == .some(nil))
    }

    @Test func aSourceHandsOverWhileTheRecorderHoldsItsLock() throws {
        // The flush loop holds the lock through a flush's fdatasync, a command through its
        // transaction: a source's thread waits for neither (a wait is a wake-up, and four IIO
        // devices on one clock would queue on each other).
        let harness = try RecorderHarness(flushInterval: 60_000)
        defer { harness.command(.stop) }
        harness.recorder.withStateLocked { harness.feed.feed(acceleration(20)) }
        // Taken into the recording before the status is answered.
        #expect(harness.command(.status).status?.pendingSamples == 20)
        #expect(harness.command(.status).status?.sources.first?.samples == 20)
    }

    @Test func statusIsAnsweredWhileTheDriverThreadIsInTheStore() throws {
        // The driver thread holds its lane through every store action (a commit's fdatasync, a
        // clock correction's transaction); `capture status` must not wait for it.
        let harness = try RecorderHarness(flushInterval: 60_000)
        defer { harness.command(.stop) }
        harness.feed.feed(acceleration(5))
        let answered = DispatchSemaphore(value: 0)
        let pending = Mutex<Int?>(nil)
        harness.recorder.lane.withLock { _ in
            Thread {
                let status = harness.command(.status).status
                pending.withLock { $0 = status?.pendingSamples }
                answered.signal()
            }.start()
            #expect(answered.wait(timeout: .now() + 5) == .success, "status waited for the driver's store action")
        }
        #expect(pending.withLock { $0 } == 5)
    }

    @Test func aSourceFarAheadOfTheRecorderLosesWhatItsInboxCannotHoldAndSaysSo() throws {
        // A store stalled for a minute holds the recorder's lock: a source goes on handing over
        // into its inbox, which holds a bounded number of samples; the rest are counted as lost.
        let harness = try RecorderHarness(flushInterval: 60_000, inboxCapacity: 50)
        defer { harness.command(.stop) }
        let start = WallClock.now()
        harness.recorder.withStateLocked {
            for step in 0..<3 { harness.feed.feed(acceleration(30, from: start + Int64(step) * 30)) }
        }
        let status = try #require(harness.command(.status).status)
        #expect(status.sources.first?.samples == 50)
        #expect(status.sources.first?.lost == 40)
        #expect(status.lostSamples == 40)
        #expect(status.sources.first?.note?.contains("fell behind") == true)
        // Taken in, the inbox has room again.
        harness.feed.feed(acceleration(30, from: start + 90))
        #expect(harness.command(.pause).ok)
        #expect(try harness.committed().accelerometer == 80)
        #expect(harness.command(.status).status?.lostSamples == 40)
        let journal = try String(
            contentsOfFile: Store.attachmentDirectory(of: harness.measurement, in: harness.directory) + "/recorder.jsonl",
            encoding: .utf8)
        #expect(journal.contains("fell behind") && journal.contains(#""lost_so_far":40"#))
    }

    @Test func stopCommitsEverythingStopsTheSourcesAndEndsTheRun() throws {
        let harness = try RecorderHarness(flushInterval: 60_000)
        // The socket and the pid file are in the runtime directory, none in the data directory.
        #expect(harness.recorder.runtime.controlSocket == Recorder.socketPath(directory: harness.directory))
        #expect(FileManager.default.fileExists(atPath: harness.recorder.runtime.controlSocket))
        #expect(try String(contentsOfFile: harness.recorder.runtime.pidFile, encoding: .utf8) == "\(getpid())\n")
        #expect(RuntimeDirectory.formerNames.allSatisfy { !FileManager.default.fileExists(atPath: harness.directory + "/" + $0) })
        harness.feed.feed(acceleration(7))
        let stopped = harness.command(.stop)
        #expect(stopped.ok && stopped.status?.state == .finished)
        #expect(harness.waitForEnd() == .some(nil))
        // run() waits for the sources to notice the stop.
        #expect(harness.feed.hasEnded)
        #expect(try harness.committed().accelerometer == 7)
        let record = try harness.store.measurement(harness.measurement)
        #expect(record.status == .finished && record.endTime != nil)
        // Nothing is taken after the stop, and the socket and pid file are gone.
        harness.feed.push(acceleration(3))
        usleep(50_000)
        #expect(try harness.committed().accelerometer == 7)
        #expect(!FileManager.default.fileExists(atPath: Recorder.socketPath(directory: harness.directory)))
        #expect(!FileManager.default.fileExists(atPath: harness.recorder.runtime.pidFile))
    }

    @Test func refusalsAreTypedFailuresAndChangeNothing() throws {
        let harness = try RecorderHarness(flushInterval: 60_000)
        defer { harness.command(.stop) }
        #expect(harness.command(.resume).failure?.kind == .notPaused)
        #expect(harness.command(.modality).failure?.kind == .badRequest)
        harness.command(.pause)
        #expect(harness.command(.pause).failure?.kind == .notCapturing)
        #expect(try harness.store.measurement(harness.measurement).status == .paused)
        // A change of modality is recorded while paused too.
        #expect(harness.command(.modality, modality: .car).status?.modality == .car)
    }

    @Test func aFailingSourceIsReportedAndTheOthersGoOn() throws {
        let harness = try RecorderHarness(flushInterval: 60_000, extraSources: [FailingSource()])
        defer { harness.command(.stop) }
        #expect(waitUntil { harness.command(.status).status?.failedSources == 1 })
        let status = try #require(harness.command(.status).status)
        #expect(status.sources.map(\.state) == [.running, .failed])
        #expect(status.sources.last?.error == "the device vanished")
        harness.feed.feed(acceleration(2))
        #expect(harness.command(.pause).ok)
        #expect(try harness.committed().accelerometer == 2)
    }

    @Test func theControlSocketCarriesTypedRequestsAndReplies() throws {
        let harness = try RecorderHarness(flushInterval: 60_000)
        let reply = try RecorderClient.send(.modality(.train), directory: harness.directory)
        #expect(reply.ok && reply.status?.modality == .train && reply.status?.state == .capturing)
        let wire = String(decoding: try JSONEncoder().encode(ControlRequest.modality(.eBike)), as: UTF8.self)
        #expect(wire.contains(#""command":"modality""#) && wire.contains(#""modality":"EBike""#))
        let refused = try RecorderClient.send(ControlRequest(command: .resume), directory: harness.directory)
        #expect(!refused.ok && refused.failure?.kind == .notPaused)
        let failure = String(decoding: try JSONEncoder().encode(refused.failure), as: UTF8.self)
        #expect(failure.contains(#""kind":"notPaused""#))
        #expect(try RecorderClient.send(ControlRequest(command: .stop), directory: harness.directory).status?.state == .finished)
        #expect(harness.waitForEnd() == .some(nil))
    }
}
