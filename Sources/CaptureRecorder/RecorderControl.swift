package import CaptureCore
package import CaptureStorage
import CaptureSensors
import Foundation
import Glibc

/// What a lifecycle command reports: the measurement as its recorder (or the store) has it.
/// Field names and values are the `--json` output's.
package struct LifecycleReport: Codable, Sendable, Equatable {
    /// The measurement id.
    package var measurement: Int64
    /// Where it stands now.
    package var state: MeasurementState
    /// The current (or last) track.
    package var track: Int
    /// The modality in force.
    package var modality: Modality?
    /// The recorder's process id, when one runs.
    package var pid: Int32?
    /// For `modality`: ``LifecycleOutcome/unchanged`` when that modality was in force already
    /// (nothing recorded); `nil` for the other commands.
    package var outcome: LifecycleOutcome?
    /// For `stop` of an interrupted measurement on a full store: flushes its recorder had made
    /// durable in the flush log that did not fit into the database and were given up.
    package var givenUp: Int?
    /// With `ride.detect: auto`: where the ride rules stand (after `stop`: armed).
    package var ride: RideStatus?

    package init(
        measurement: Int64, state: MeasurementState, track: Int, modality: Modality?, pid: Int32? = nil,
        outcome: LifecycleOutcome? = nil
    ) {
        self.measurement = measurement
        self.state = state
        self.track = track
        self.modality = modality
        self.pid = pid
        self.outcome = outcome
    }

    /// The report of a recorder that waits armed (`ride.detect: auto`): no measurement yet (0).
    package static func armed(modality: Modality?, pid: Int32) -> LifecycleReport {
        var report = LifecycleReport(measurement: 0, state: .idle, track: 0, modality: modality, pid: pid)
        report.ride = RideStatus(state: .armed, since: WallClock.now())
        return report
    }

    /// The report a running recorder gives.
    package init(_ status: RecorderStatus) {
        self.init(
            measurement: status.measurement, state: status.state, track: status.track, modality: status.modality,
            pid: status.pid)
        ride = status.ride
    }

    /// The report for a measurement as stored (when no recorder answers for it).
    package init(store: Store, id: Int64, pid: Int32? = nil) throws(StoreError) {
        let record = try store.measurement(id)
        self.init(
            measurement: id, state: record.status, track: record.trackCount,
            modality: try store.currentModality(of: id), pid: pid)
    }
}

/// Why a lifecycle command could not reach or use a recorder. Describes the fault; the command
/// line words the advice.
package enum RecorderControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A new measurement cannot start: `measurement` is open, with its recorder running or not.
    case measurementOpen(measurement: Int64, status: MeasurementState, recorderRunning: Bool)
    /// The open measurement's recorder is not running (it was killed, or the machine lost power).
    case recorderGone(measurement: Int64)
    /// A recorder holds the directory but did not answer on its control socket.
    case noAnswer(reason: String)
    /// A recorder is starting (it holds the lock but has not begun yet).
    case recorderStarting

    package var description: String {
        switch self {
        case .measurementOpen(let id, let status, let running):
            running ? "measurement \(id) is already \(status.rawValue)" : "measurement \(id) was interrupted"
        case .recorderGone(let id): "measurement \(id) was interrupted (its recorder is not running)"
        case .noAnswer(let reason): "the recorder did not answer: \(reason)"
        case .recorderStarting: "a recorder is starting"
        }
    }
}

/// The lifecycle commands of a data directory: they talk to its running recorder, or, when
/// its recorder is gone, start a new one (resume) or finish the measurement from the store (stop).
///
/// ```swift
/// let control = RecorderControl(directory: "/home/me/.local/share/capture")
/// let report = try control.pause()   // LifecycleReport(state: .paused, …)
/// ```
package struct RecorderControl: Sendable {
    /// The data directory (absolute).
    package let directory: String
    /// How a recorder is started (resume of an interrupted measurement).
    package var launcher: RecorderLauncher

    /// The commands for `directory`, starting recorders with `launcher`.
    package init(directory: String, launcher: RecorderLauncher = RecorderLauncher()) {
        self.directory = directory
        self.launcher = launcher
    }

    /// Whether a recorder holds the directory now.
    package var recorderIsRunning: Bool { RecorderLock.isHeld(directory: directory) }

    /// The store, if the directory has one; nothing is created.
    /// A path that is not a data directory (a file, `/etc`) is refused (``DataDirectory``).
    func existingStore() throws(StoreError) -> Store? {
        try DataDirectory.existingStore(at: directory)
    }

    // MARK: - Start

    /// Throws ``RecorderControlError/measurementOpen(measurement:status:recorderRunning:)`` when
    /// a measurement is open, so that `start` refuses before it starts anything.
    package func refuseIfOpen() throws {
        guard let store = try existingStore(), let open = try store.openMeasurement() else { return }
        throw RecorderControlError.measurementOpen(
            measurement: open.id, status: open.status, recorderRunning: recorderIsRunning)
    }

    /// The open measurement whose recorder is gone (a crash, a power loss), with its sources:
    /// what ``resume(_:)`` continues. `nil` when nothing is open or a recorder runs.
    package func interruptedMeasurement() throws -> (id: Int64, sources: [String])? {
        guard !recorderIsRunning, let store = try existingStore(), let open = try store.openMeasurement() else { return nil }
        return (open.id, open.sources.split(separator: "\n").map(String.init))
    }

    /// What `capture start --continue-interrupted` in the background does with the interrupted
    /// measurement (the systemd unit runs it in the foreground: ``interruptedRecovery(continuing:now:)``,
    /// which only reads): one whose last
    /// committed data is younger than `ride.resume_within` is returned, to be continued on a new
    /// track; an older one is finished at its last committed sample
    /// (``Recovery/endByInterruption(store:directory:ride:at:)``: discarded if its ride moved
    /// less than `ride.min_distance`) and `nil` returned, so that a new
    /// measurement begins. `nil` too when nothing is open or a recorder runs.
    package func interruptedMeasurement(
        continuing ride: RideSettings, now: Int64? = nil
    ) throws -> (id: Int64, sources: [String])? {
        let now = now ?? WallClock.now()
        guard let interrupted = try interruptedMeasurement(), let store = try existingStore() else { return nil }
        guard let lock = try RecorderLock(directory: directory) else { throw RecorderControlError.recorderStarting }
        let continues = try Self.continues(interrupted.id, store: store, ride: ride, at: now)
        if !continues { _ = try Recovery.endByInterruption(store: store, directory: directory, ride: ride, at: now) }
        _ = consume lock
        return continues ? interrupted : nil
    }

    /// What a recorder starting in the foreground after an interruption does with the
    /// interrupted measurement (the one whose committed data, counting what its recorder left
    /// in the flush log, is younger than `ride.resume_within` continues; an older one is
    /// finished by the new recorder, ``Recorder/endInterrupted()``). Only reads: while another
    /// process holds the database, the recorder starts all the same and its recovery waits in
    /// the flush log. `nil` when nothing is open or a recorder runs.
    package func interruptedRecovery(
        continuing ride: RideSettings, now: Int64? = nil
    ) throws -> (id: Int64, sources: [String], continues: Bool)? {
        guard !recorderIsRunning, let store = try existingStore() else { return nil }
        guard let lock = try RecorderLock(directory: directory) else { throw RecorderControlError.recorderStarting }
        let found = try Recovery.interrupted(store: store, directory: directory)
        _ = consume lock
        guard let (open, sources) = found else { return nil }
        // Stored times may be on GNSS time; the age is taken on the host clock.
        let continues = ride.continues(committedEnd: open.committedEnd - (open.correction ?? 0), at: now ?? WallClock.now())
        return (open.id, sources, continues)
    }

    /// Whether measurement `id`'s committed data ends within `ride.resume_within` of `now`.
    private static func continues(_ id: Int64, store: Store, ride: RideSettings, at now: Int64) throws -> Bool {
        // What the dead recorder staged counts: its committed data ends where the flush log does.
        _ = try store.applyFlushLog(wait: true, dropping: false)
        let stored = try store.lastTimestamp(of: id) ?? store.measurement(id).startTime
        // Stored times may be on GNSS time; the age is taken on the host clock.
        let committedEnd = stored - (try store.clockCorrection(of: id) ?? 0)
        return ride.continues(committedEnd: committedEnd, at: now)
    }

    /// Starts a background recorder for a new measurement, once ``refuseIfOpen()`` passes.
    package func start(_ configuration: RecorderConfiguration) throws -> LifecycleReport {
        try refuseIfOpen()
        let started = try launcher.start(configuration)
        if started.measurement == 0 { return .armed(modality: configuration.modality, pid: started.pid) }
        // As stored: the modality may come from a trace's start mark, which the recorder read.
        if let store = try? existingStore(), let report = try? LifecycleReport(store: store, id: started.measurement, pid: started.pid) {
            return report
        }
        return LifecycleReport(
            measurement: started.measurement, state: .capturing, track: 1, modality: configuration.modality,
            pid: started.pid)
    }

    // MARK: - Commands to the running recorder

    /// Pauses the measurement.
    package func pause() throws -> LifecycleReport { try send(ControlRequest(command: .pause)) }

    /// Records a change of modality; the report's ``LifecycleReport/outcome`` is
    /// ``LifecycleOutcome/unchanged`` when `modality` was in force already (nothing is recorded then).
    package func changeModality(to modality: Modality) throws -> LifecycleReport { try send(.modality(modality)) }

    /// Marks the moment in the ride under way, by `source` (the marker's source: `page`), as a
    /// short press of the button does.
    package func mark(by source: String) throws -> LifecycleReport { try send(ControlRequest(command: .mark, source: source)) }

    /// Begins a ride now, as a long press of the button does while armed (`ride.detect: auto`).
    package func beginRide() throws -> LifecycleReport { try send(ControlRequest(command: .begin)) }

    /// Resumes a paused measurement on a new track; an interrupted one (its recorder gone) is
    /// continued by a new recorder with the same sources and the rest of `settings` (asked only
    /// then: ride rules, retention, flush interval, ceiling). A trace source
    /// continues where the committed data ends (``SampleSource/continuing(measurementStart:committedEnd:resumedAt:)``); if the trace had
    /// paused the measurement, it stays paused until the trace's own `resume` mark.
    package func resume(_ settings: () throws -> RecorderConfiguration) throws -> LifecycleReport {
        if !recorderIsRunning, let store = try existingStore(), let open = try store.openMeasurement() {
            var configuration = try settings()
            (configuration.directory, configuration.modality, configuration.recordTrace) = (directory, nil, nil)
            configuration.sources = open.sources.split(separator: "\n").map(String.init)
            let started = try launcher.start(configuration, recover: true)
            return try LifecycleReport(store: store, id: started.measurement, pid: started.pid)
        }
        return try send(ControlRequest(command: .resume))
    }

    /// Stops the measurement for good and returns once its recorder has exited (10 s at most).
    /// An interrupted measurement is finished where its committed data ends.
    package func stop() throws -> LifecycleReport {
        if !recorderIsRunning, let store = try existingStore(), try store.openMeasurement() != nil {
            guard let lock = try RecorderLock(directory: directory) else { throw RecorderControlError.recorderStarting }
            let (id, givenUp) = try Recovery.stopInterrupted(store: store)
            _ = consume lock
            var report = try LifecycleReport(store: store, id: id)
            if givenUp > 0 { report.givenUp = givenUp }
            return report
        }
        var report = try send(ControlRequest(command: .stop))
        // With `ride.detect: auto` the ride ended and the recorder goes on, armed: the report
        // is about that ride.
        if let ride = report.ride {
            if let last = ride.lastRide { (report.measurement, report.state) = (last, .finished) }
            return report
        }
        // Wait for the recorder to exit, so that the next command finds the directory free.
        for _ in 0..<200 where recorderIsRunning { usleep(50_000) }
        return report
    }

    /// Sends `request` to the running recorder, or explains why there is none: the recorder's
    /// ``ControlFailure``, ``RecorderControlError``, or ``LifecycleError/notOpen(state:)``.
    package func send(_ request: ControlRequest) throws -> LifecycleReport {
        if recorderIsRunning {
            let reply: ControlReply
            do {
                reply = try RecorderClient.send(request, directory: directory)
            } catch {
                // A recorder that ended its measurement by itself (its trace's stop mark) stops
                // answering a moment before it lets go of its lock: then nothing is open, and the
                // command is refused as with no recorder at all.
                guard let store = try existingStore(), try store.openMeasurement() == nil else {
                    throw RecorderControlError.noAnswer(reason: "\(error)")
                }
                throw LifecycleError.notOpen(state: .idle)
            }
            guard reply.ok, let status = reply.status else {
                throw reply.failure ?? ControlFailure(kind: .storage, message: "the recorder gave no answer")
            }
            var report = LifecycleReport(status)
            report.outcome = reply.outcome
            return report
        }
        if let store = try existingStore(), let open = try store.openMeasurement() {
            throw RecorderControlError.recorderGone(measurement: open.id)
        }
        throw LifecycleError.notOpen(state: .idle)
    }

    // MARK: - Status

    /// What `capture status` shows: the open measurement, its live recorder, the upload tally.
    package func status() throws -> StatusReport {
        var report = StatusReport(dataDirectory: directory, state: .idle)
        // Refused first: a directory capture did not make is not reported on, nor its mode.
        try DataDirectory.check(directory)
        report.exposed = PrivacyCheck(dataDirectory: directory).exposures
        report.login = LoginLifetime.report(
            loginFile: directory + "/" + LoginLifetime.fileName, now: Int64(Date().timeIntervalSince1970 * 1000))
        guard let store = try existingStore() else { return report }
        report.device = try store.deviceID()
        let uploads = try store.uploads()
        var tally: [String: Int] = [:]
        // An upload is running only while an uploader holds the data directory's upload lock;
        // a session left by one that was stopped (Ctrl-C, a crash) is an interrupted upload.
        let uploading = ExclusiveFileLock.isHeld(path: directory + "/upload.lock")
        for record in try store.measurements() where !record.isOpen {
            let status = uploads[record.id]?.status ?? .pending
            tally[status == .uploading && !uploading ? StatusReport.interruptedUpload : status.rawValue, default: 0] += 1
        }
        report.uploads = tally
        let totals = try store.deliveryTotals()
        if totals != DeliveryTotals() { report.delivery = totals }
        let sync = try store.deliveryState()
        if sync != DeliveryState() { report.sync = sync }
        let rides = RideTally(try store.rideCounts())
        if rides != RideTally() { report.rides = rides }
        guard let open = try store.openMeasurement() else {
            // Armed (`ride.detect: auto`): a recorder runs with nothing open.
            report.recorder = liveRecorder()
            report.ride = report.recorder?.ride
            return report
        }
        report.measurement = open.id
        report.track = open.trackCount
        report.modality = try store.currentModality(of: open.id)
        // Read before the recorder is asked what it staged: a staged flush moved to the
        // database in between is then missed for this once rather than counted twice.
        let stored = try store.counts(of: open.id)
        report.committed = stored
        let live = liveRecorder()
        report.recorder = live
        report.ride = live?.ride
        report.state = open.status.seen(id: open.id, held: HeldMeasurement(live))
        if let live, report.state != .interrupted {
            report.track = live.track
            report.modality = live.modality
            if let staged = live.staged { report.committed = stored + staged }
        } else {
            // Its recorder is gone; a recorder that holds the directory has not taken it on
            // (it is starting, or records another measurement).
            if live == nil, recorderIsRunning { report.recorderStarting = true }
            report.ended = RecordingEnd.read(measurement: open.id, directory: directory)
        }
        return report
    }

    /// Whether the running recorder waits armed for room in a store full of rides not delivered
    /// (``RideStatus/State/waitingForRoom``); `false` when none runs or answers.
    package var waitingForRoom: Bool { liveRecorder()?.ride?.state == .waitingForRoom }

    /// What the running recorder says about itself; `nil` when none runs or it does not answer
    /// yet (it holds the lock from its first moment, and listens once its store and sources
    /// are open).
    func liveRecorder() -> RecorderStatus? {
        guard recorderIsRunning else { return nil }
        return try? RecorderClient.send(ControlRequest(command: .status), directory: directory).status
    }

    /// Measurement `id` as `capture show` prints it, its state decided as `list` and `status`
    /// decide it (``MeasurementState/seen(id:held:)``).
    package func summary(of id: Int64, qnh: Double? = nil) throws -> MeasurementSummary {
        guard let store = try existingStore() else { throw StoreError.measurementNotFound(id) }
        return try store.summary(of: id, qnh: qnh, held: HeldMeasurement(liveRecorder()))
    }
}

extension HeldMeasurement {
    /// The measurement a recorder's status says it holds; `nil` without one (the recorder waits
    /// armed, or has not begun: measurement 0).
    init?(_ status: RecorderStatus?) {
        guard let status, status.measurement != 0 else { return nil }
        self.init(id: status.measurement, state: status.state)
    }
}

extension RecorderControl {
    /// Every measurement, oldest first, as `capture list` prints them; the open one counted as
    /// ``status()`` counts it: what is in the database and what its live recorder has staged in
    /// the flush log (durable, not yet moved into the database), so that `list` and `status`
    /// never disagree about a recording in progress.
    package func list() throws -> [MeasurementListEntry] {
        guard let store = try existingStore() else { return [] }
        let status = try status()
        var entries = try store.listEntries(held: HeldMeasurement(status.recorder))
        if let open = status.measurement, let committed = status.committed,
            let index = entries.firstIndex(where: { $0.id == open })
        {
            entries[index].counts = committed
        }
        return entries
    }
}
