package import CaptureCore
package import CaptureRecorder
package import CaptureStorage
import CaptureSensors
import Foundation
import Synchronization

/// The host clock of a simulated box: set by the simulation, read by its recorder and store.
final class SimulatedClock: Sendable {
    private let value = Atomic<Int64>(0)

    var now: Int64 { value.load(ordering: .relaxed) }

    func set(_ time: Int64) { value.store(time, ordering: .relaxed) }

    /// The clock as the recorder and the store take one.
    var reading: @Sendable () -> Int64 { { [self] in now } }
}

/// The rides a recorder handed to delivery (its `rideEnded`), until the event log notes them.
final class HandedRides: Sendable {
    let rides = Mutex<[Int64]>([])

    func take() -> [Int64] {
        rides.withLock { rides in
            defer { rides = [] }
            return rides
        }
    }
}

/// The box's receiver as its recorder sees it (`capture.sources: [gpsd]`): a live receiver on
/// GNSS time. Never run: the simulation hands its fixes to the recorder's state machine.
struct SimulatedReceiver: SampleSource {
    var name: String { "gpsd" }
    var clock: SourceClock { .gnss }
    func run(into sink: any SampleSink) throws {}
}

/// One box in the packaged configuration (`dist/config.example.yaml`: `capture.sources: [gpsd]`,
/// `flush_interval: 1s`, `ride.*`, `retention.*`, the unit's `capture start --foreground
/// --continue-interrupted`, the sync timer every 10 minutes from 2 minutes after boot), on a
/// simulated clock. Its recorder is the real ``Recorder`` on the real ``Store`` and flush log;
/// the simulation plays its driver thread: one `flush due` a second with what the receiver
/// handed over, the queued actions performed before the next.
package final class SimulatedBox {
    /// `ride.*` of the example configuration, `ride.detect: auto`.
    package static let ride = RideSettings(
        detect: .auto, resumeWithin: 120_000, endAfterStill: 300_000, preRoll: 10_000, minDistance: 50,
        maxDuration: 12 * 3_600_000, payloadLimit: 100 * 1_048_576)
    /// `retention.*` of the example configuration.
    package static let retention = RetentionPolicy(keepUploadedDays: 30, maxStoreSize: ByteSize(parsing: "2GB")!, dropUnsent: .never)
    /// `capture.flush_interval`, ms.
    package static let flushInterval: Int64 = 1000
    /// The unit's sync timer: `OnBootSec=2min`, `OnUnitActiveSec=10min`.
    static let firstSync: Int64 = 120_000
    static let syncEvery: Int64 = 600_000
    /// Where the life begins (true time, Unix ms: 2026-06-01 00:00 UTC) and the bike stands.
    static let epoch: Int64 = 1_780_272_000_000
    static let home = (latitude: 50.95, longitude: 13.55)

    package let directory: String
    let hostClock = SimulatedClock()
    /// True time, Unix ms.
    package private(set) var now: Int64 = SimulatedBox.epoch
    /// How far the host clock is off true time since the last boot.
    private(set) var skew: Int64 = 0
    package private(set) var recorder: Recorder?
    var position = SimulatedBox.home
    /// Seconds the receiver stays without a fix.
    private var dark = 0
    private var nextSync: Int64 = .max
    let collector: SimulatedCollector
    /// Rides the recorder handed to delivery (`rideEnded`), not yet logged.
    private let handed = HandedRides()
    /// What happened, for the event log.
    var notes: [String] = []
    private var lastState: RecorderStateMachine.State?

    init(directory: String, collector: SimulatedCollector) {
        self.directory = directory
        self.collector = collector
    }

    var host: Int64 { now + skew }
    package var isOn: Bool { recorder != nil }

    /// The moment, as the event log writes it: day and true time since the life began.
    var stamp: String {
        let seconds = (now - Self.epoch) / 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "d\(seconds / 86_400) \(two(seconds % 86_400 / 3600)):\(two(seconds % 3600 / 60)):\(two(seconds % 60))"
    }

    func note(_ text: String) { notes.append("  \(stamp) \(text)") }

    // MARK: - Power

    /// The power comes back: the unit's `capture start --foreground --continue-interrupted`
    /// (``RecorderControl/start(_:sources:continueInterrupted:foreground:rideEnded:event:)`` and
    /// ``RecorderProcess/run(_:recover:endingInterrupted:readiness:rideEnded:announce:)``): the
    /// interrupted measurement continued when its committed data is younger than
    /// `ride.resume_within`, else finished as a power cut ends a ride and the recorder armed.
    func boot(offFor: Int64, skew: Int64) throws {
        if isOn { cut(after: .max) }
        now += max(0, offFor)
        self.skew = skew
        hostClock.set(host)
        dark = 0
        let found = try RecorderControl(directory: directory).interruptedRecovery(continuing: Self.ride, now: host)
        let store = try Store(directory: directory, clock: hostClock.reading)
        let recorder = Recorder(
            directory: directory, store: store, sources: [SimulatedReceiver()], flushInterval: Self.flushInterval,
            gnssTime: .auto, retention: Self.retention, ride: Self.ride,
            rideEnded: { [handed] id in handed.rides.withLock { $0.append(id) } }, clock: hostClock.reading,
            hostSynchronized: false)
        self.recorder = recorder
        if let found, found.continues {
            let id = try recorder.recoverInterrupted()
            note("boot (clock \(skew / 1000) s off): measurement \(id) continued")
        } else {
            let ended = try recorder.endInterrupted()
            try recorder.arm(modality: .bicycle)
            note("boot (clock \(skew / 1000) s off): " + (ended.map { "measurement \($0) ended by power, " } ?? "") + "armed")
        }
        lastState = recorder.inspect { $0.state }
        nextSync = now + Self.firstSync
    }

    /// The power goes: the recorder performs `actions` more of what it queued; the rest, and
    /// everything in memory, is lost. What it wrote is synced (the flush log and the database
    /// sync every record and commit), so the files stay as they are.
    func cut(after actions: Int) {
        guard isOn else { return }
        _ = recorder?.performQueued(cuttingAfter: actions)
        recorder = nil
        logHanded()
        note("power cut" + (actions > 0 && actions < .max ? " (\(actions) queued action(s) performed)" : ""))
        // The process is gone: so are its descriptors and the flush log's lock.
        precondition(
            (try? FlushLog(directory: directory, wait: false)) != nil, "a cut recorder still holds the flush log")
    }

    // MARK: - Time

    /// One second: what the driver performed since the last, then the receiver's fix (if it has
    /// one) and a `flush due`. Off, the bike moves all the same.
    func second(speed: Double, heading: Double) throws {
        let metres = speed
        let radians = heading * .pi / 180
        position.latitude += metres * cos(radians) / 111_320
        position.longitude += metres * sin(radians) / (111_320 * cos(position.latitude * .pi / 180))
        guard let recorder else {
            now += 1000
            return
        }
        _ = recorder.performQueued()
        now += 1000
        hostClock.set(host)
        let arrived = host
        var fix: Fix?
        if dark > 0 {
            dark -= 1
        } else {
            fix = Fix(
                timestamp: now, latitude: position.latitude, longitude: position.longitude, altitude: 120,
                horizontalAccuracy: 4, speed: speed, course: heading, satellites: 9)
        }
        recorder.feed { machine in
            let taken = fix.map { machine.take([([.fix($0)], arrived: arrived)], dropped: 0, capacity: 65_536, from: 0) } ?? []
            return taken + machine.flushDue(at: arrived)
        }
        observeState(of: recorder)
        if now >= nextSync {
            _ = recorder.performQueued()
            notes += collector.deliveryPass(directory: directory, clock: hostClock.reading, stamp: stamp)
            nextSync = now + Self.syncEvery
        }
    }

    /// The receiver loses its fix for `seconds`.
    func darken(_ seconds: Int) { dark = max(dark, seconds) }

    /// Notes a ride begun or ended (the state machine's state) and rides handed to delivery.
    private func observeState(of recorder: Recorder) {
        let state = recorder.inspect { $0.state }
        guard state != lastState else { return }
        switch (lastState, state) {
        case (_, .recording(let id)): note("ride begun" + (id == 0 ? "" : " as measurement \(id)"))
        case (.recording(let id)?, .armed): note("ride \(id) ended, armed")
        case (_, .finished(_, let failure)): note("recorder finished" + (failure.map { ": \($0)" } ?? ""))
        default: break
        }
        lastState = state
        logHanded()
    }

    private func logHanded() {
        for id in handed.take() { note("ride \(id) kept, handed to delivery") }
    }
}
