import CaptureCore
import CaptureSensors
import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

@testable import CaptureRecorder

/// The rider's button on the recorder (issue 43, item 1): a short press marks the moment in the
/// ride's journal, placed at the last fix; a long one ends the ride under way or begins one.
@Suite struct ButtonPressTests: StateMachineSuite {
    static let device = "/dev/input/event7"

    static func recording() -> RideRulesTests.World {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        world.run(2, speed: 0)
        world.run(10, speed: 5)
        return world
    }

    /// A FIFO standing in for `button.device`; its path.
    static func fakeButton() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-button-\(UUID().uuidString)").path
        try #require(mkfifo(path, 0o600) == 0)
        return path
    }

    /// A press of KEY_ENTER on the fake button at `path`, held `held` ms; when it went down.
    static func press(_ path: String, held: Int64) throws -> Int64 {
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let pressed = WallClock.now()
        for event in [InputEvent(time: pressed, type: 1, code: 28, value: 1), InputEvent(time: pressed + held, type: 1, code: 28, value: 0)] {
            #expect(write(fd, event.bytes, InputEvent.size) == InputEvent.size)
        }
        return pressed
    }

    @Test func aShortPressWhileRecordingIsAMarkerAtTheLastFix() throws {
        var world = Self.recording()
        let fix = try #require(world.machine.lastFix)
        let time = Self.t0 + 11_800
        let actions = world.machine.pressed(.short(at: time), device: Self.device, now: time + 40)
        let marker = Marker(time: time, latitude: fix.latitude, longitude: fix.longitude, source: "button " + Self.device)
        #expect(actions == [.journal(.marker(marker), at: time)])
        // Its journal line, as `Store.markers` reads it back.
        var line = RecorderStateMachine.JournalEntry.marker(marker).line
        line.t = time
        let text = try #require(String(data: try line.encoded(), encoding: .utf8))
        #expect(Store.markers(inJournal: "{\"event\":\"armed\",\"t\":1}\n" + text + "{\"t\":") == [marker])
    }

    @Test func aMarkerFarFromAnyFixHasNoPlace() {
        var world = Self.recording()
        let time = Self.t0 + 60_000
        let actions = world.machine.pressed(.short(at: time), device: Self.device, now: time)
        #expect(actions == [.journal(.marker(Marker(time: time, source: "button " + Self.device)), at: time)])
    }

    @Test func armedAShortPressMarksNothingAndALongOneBeginsARide() {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        world.run(5, speed: 0)
        let now = Self.t0 + 5_000
        #expect(world.machine.pressed(.short(at: now), device: Self.device, now: now).isEmpty)
        let actions = world.machine.pressed(.long(at: now), device: Self.device, now: now)
        #expect(actions.contains { if case .beginRide(_, _, .button, _) = $0 { true } else { false } })
        #expect(world.machine.state != .armed)
    }

    @Test func aLongPressEndsTheRideUnderWayAndArms() {
        var world = Self.recording()
        let time = Self.t0 + 12_000
        let actions = world.machine.pressed(.long(at: time), device: Self.device, now: time)
        #expect(actions.contains { if case .endRide(_, _, _, .button) = $0 { true } else { false } })
        #expect(actions.contains(.journal(.ride(.armed), at: nil)))
        #expect(world.machine.state == .armed)
    }

    @Test func withoutRideDetectionALongPressStopsTheMeasurement() throws {
        var machine = Machine(sources: [.init(name: "iio")], flushInterval: 1000)
        _ = try machine.start(modality: .bicycle, at: Self.t0)
        machine.began(measurement: 3, at: Self.t0)
        let actions = machine.pressed(.long(at: Self.t0 + 5_000), device: Self.device, now: Self.t0 + 5_000)
        #expect(actions.contains(.journal(.command(.stop, by: "button " + Self.device), at: Self.t0 + 5_000)))
        if case .finished = machine.state {} else { Issue.record("expected the run to finish, got \(machine.state)") }
    }

    @Test func aMarkerMadeWhileTheRidesBeginWaitsIsWrittenOnceItHasAnId() {
        var machine = RideRulesTests.armed()
        machine.state = .recording(measurement: 0)
        let time = Self.t0 + 1_000
        #expect(machine.pressed(.short(at: time), device: Self.device, now: time).isEmpty)
        let began = machine.began(measurement: 5, at: time + 500)
        #expect(began.contains(.journal(.marker(Marker(time: time, source: "button " + Self.device)), at: time)))
        #expect(machine.heldMarkers.isEmpty)
    }

    /// A ride whose begin never reached the store (another process held it all along) ends with
    /// its held markers: the next ride's journal does not get them.
    @Test func aMarkerOfARideThatNeverBeganGoesWithIt() {
        var world = RideRulesTests.World(machine: RideRulesTests.armed())
        world.run(2, speed: 0)
        world.machine.state = .recording(measurement: 0)
        world.machine.waits.begin = .checkRoom  // any action: the begin that waits
        _ = world.machine.pressed(.short(at: Self.t0 + 2_100), device: Self.device, now: Self.t0 + 2_100)
        #expect(world.machine.heldMarkers.count == 1)
        _ = world.machine.pressed(.long(at: Self.t0 + 2_500), device: Self.device, now: Self.t0 + 2_500)
        #expect(world.machine.state == .armed)
        _ = world.machine.pressed(.long(at: Self.t0 + 3_000), device: Self.device, now: Self.t0 + 3_000)
        let began = world.machine.began(measurement: 6, at: Self.t0 + 3_100)
        #expect(!began.contains { if case .journal(.marker, _) = $0 { true } else { false } })
    }

    /// A running recorder with a FIFO named as `button.device`: a short press is in the ride's
    /// `recorder.jsonl` and read back as its marker; the journal line is durable when it is there.
    @Test func aPressReachesTheJournalOfARunningRecorder() throws {
        let path = try Self.fakeButton()
        defer { unlink(path) }
        let harness = try RecorderHarness(
            flushInterval: 100, button: ButtonReader(ButtonSettings(device: path, key: 28, longPress: 2000)))
        harness.feed.feed(acceleration(20))
        let pressed = try Self.press(path, held: 120)
        #expect(waitUntil { !harness.store.markers(of: harness.measurement).isEmpty })
        harness.command(.stop)
        #expect(harness.waitForEnd() != nil)
        let markers = harness.store.markers(of: harness.measurement)
        #expect(markers == [Marker(time: pressed, source: "button " + path)])
    }
}

/// A press while another process holds the store (an `sqlite3` reading): the marker is in the
/// journal at once, not after the store lets go, and nothing of the recording is lost.
@Suite struct ButtonBusyStoreTests {
    @Test func aPressWhileTheStoreIsBusyIsInTheJournalAtOnce() throws {
        guard let sqlite3 = Program.require("sqlite3", package: "sqlite3") else { return }
        let path = try ButtonPressTests.fakeButton()
        defer { unlink(path) }
        let harness = try RecorderHarness(
            flushInterval: 100, button: ButtonReader(ButtonSettings(device: path, key: 28, longPress: 2000)))
        let database = harness.directory + "/capture.sqlite"
        let reader = try Subprocess(
            ["-cmd", ".timeout 5000", database, "BEGIN", "SELECT count(*) FROM event", ".shell sleep 6", "COMMIT"],
            executable: sqlite3)
        defer { reader.stop() }
        // Until the reader holds its lock: an exclusive lock is refused then.
        for _ in 0..<100 {
            let probe = try Subprocess(["-cmd", ".timeout 0", database, "BEGIN EXCLUSIVE", "ROLLBACK"], executable: sqlite3)
            if probe.wait() != 0 { break }
            usleep(100_000)
        }
        harness.feed.feed(acceleration(20))
        let pressed = try ButtonPressTests.press(path, held: 80)
        #expect(waitUntil(seconds: 2) { !harness.store.markers(of: harness.measurement).isEmpty }, "the marker waited for the store")
        #expect(Subprocess.isAlive(reader.pid), "the reader let go early: the test proves less than it says")
        _ = reader.wait()
        harness.feed.feed(acceleration(20))
        harness.command(.stop)
        #expect(harness.waitForEnd() != nil, "the recorder did not stop")
        #expect(harness.store.markers(of: harness.measurement).map(\.time) == [pressed])
        #expect(try harness.committed().accelerometer == 40, "nothing of the recording was lost")
    }
}

/// The button on a recorder as the box runs it (`ride.detect: auto`): held, it begins a ride
/// while armed; a short press marks it; held again, it ends it and the recorder is armed.
@Suite struct ButtonRideTests {
    @Test func withRideDetectionTheButtonBeginsMarksAndEndsARide() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-button-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try ButtonPressTests.fakeButton()
        defer { unlink(path) }
        let store = try Store(directory: directory)
        let feed = FeedSource()
        let recorder = Recorder(
            directory: directory, store: store, sources: [feed], flushInterval: 100,
            ride: RideSettings(detect: .auto, endAfterStill: 600_000, preRoll: 1_000, minDistance: 0),
            button: ButtonReader(ButtonSettings(device: path, key: 28, longPress: 500)), hostSynchronized: true)
        try recorder.listen()
        try recorder.arm(modality: .bicycle)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            _ = recorder.run(handlingSignals: false)
            finished.signal()
        }.start()
        defer { recorder.abandon() }
        feed.feed(acceleration(20))
        #expect(FullStoreRecorderTests.ride(recorder)?.state == .armed)
        // Held: a ride begins, though nothing moves.
        _ = try ButtonPressTests.press(path, held: 700)
        var id: Int64 = 0
        #expect(waitUntil {
            if case .recording(let measurement) = recorder.inspect(\.state) { id = measurement }
            return id != 0
        })
        feed.feed(acceleration(20))
        let pressed = try ButtonPressTests.press(path, held: 80)
        #expect(waitUntil { store.markers(of: id).map(\.time) == [pressed] })
        // Held again: the ride ends, kept, and the recorder is armed.
        _ = try ButtonPressTests.press(path, held: 700)
        #expect(waitUntil { FullStoreRecorderTests.ride(recorder)?.state == .armed })
        #expect(waitUntil { (try? store.rideCounts()[.endedByButton]) == 1 })
        #expect(try store.rideCounts()[.begunByButton] == 1)
        #expect(try store.measurement(id).status == .finished)
        #expect(store.markers(of: id).count == 1)
        recorder.shutdown()
        #expect(finished.wait(timeout: .now() + 10) == .success, "the recorder did not end")
    }
}
