import CaptureCore
import CaptureSensors
import CaptureStorage
import Foundation
import Glibc
import Testing

@testable import CaptureRecorder

@Suite("Lifecycle client, readiness and launch configuration, in process")
struct RecorderControlTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-ctl-\(UUID().uuidString)").path

    /// Removes the data directory and its runtime directory (where a lock taken here is).
    func remove() {
        try? FileManager.default.removeItem(atPath: RuntimeDirectory(dataDirectory: directory).path)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A store with an open measurement whose recorder is gone: started at 1000, capturing,
    /// with samples committed up to 1500.
    func interrupted() throws -> (Store, Int64) {
        let store = try Store(directory: directory)
        var engine = Recording()
        let id = try store.begin(try engine.apply(.start(.car), at: 1_000), sources: "trace:/nowhere.trace")
        for time in [1_000, 1_200, 1_500] as [Int64] {
            engine.ingest(.motion(.accelerometer, MotionSample(timestamp: time, x: 0, y: 0, z: 9.81)))
        }
        try store.commit(engine.takeFlush(), to: id)
        return (store, id)
    }

    @Test func withNothingOpenCommandsSayNotOpenAndStatusIsIdle() throws {
        defer { remove() }
        let control = RecorderControl(directory: directory)
        #expect(throws: LifecycleError.notOpen(state: .idle)) { try control.pause() }
        #expect(throws: LifecycleError.notOpen(state: .idle)) { try control.stop() }
        #expect(throws: LifecycleError.notOpen(state: .idle)) { try control.changeModality(to: .bus) }
        try control.refuseIfOpen()
        let status = try control.status()
        #expect(status.state == .idle && status.measurement == nil && status.device == nil)
        // Nothing was created on disk.
        #expect(!FileManager.default.fileExists(atPath: directory + "/capture.sqlite"))
    }

    @Test func anInterruptedMeasurementIsReportedRefusedAndStoppedWhereItsDataEnds() throws {
        defer { remove() }
        let (store, id) = try interrupted()
        let control = RecorderControl(directory: directory)
        #expect(!control.recorderIsRunning)
        #expect(throws: RecorderControlError.recorderGone(measurement: id)) { try control.pause() }
        #expect(throws: RecorderControlError.measurementOpen(measurement: id, status: .capturing, recorderRunning: false)) {
            try control.refuseIfOpen()
        }
        let status = try control.status()
        #expect(status.state == .interrupted && status.measurement == id && status.modality == .car)
        #expect(status.committed?.accelerometer == 3 && status.recorder == nil)
        let json = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        #expect(json.contains(#""state":"interrupted""#) && json.contains(#""modality":"CAR""#))

        let report = try control.stop()
        #expect(report == LifecycleReport(measurement: id, state: .finished, track: 1, modality: .car, pid: nil))
        let record = try store.measurement(id)
        #expect(record.status == .finished && record.endTime == 1_500)
        #expect(try control.status().uploads == ["pending": 1])
    }

    @Test func aHeldLockMeansARecorderAndOneThatDoesNotAnswerIsSaidSo() throws {
        defer { remove() }
        _ = try interrupted()
        guard let lock = try RecorderLock(directory: directory) else {
            Issue.record("cannot take the recorder lock")
            return
        }
        let control = RecorderControl(directory: directory)
        #expect(control.recorderIsRunning)
        #expect(throws: RecorderControlError.measurementOpen(measurement: 1, status: .capturing, recorderRunning: true)) {
            try control.refuseIfOpen()
        }
        #expect {
            try control.pause()
        } throws: { error in
            guard case .noAnswer = error as? RecorderControlError else { return false }
            return true
        }
        _ = consume lock
        #expect(!control.recorderIsRunning)
    }

    /// Issue 42: `show` called an interrupted measurement `capturing` ("→ open", "so far")
    /// while `list` and `status` said `interrupted`; and while a recorder started (it holds the
    /// lock before it answers), `list` and `status` called it `capturing` too.
    @Test func showListAndStatusAgreeOnAnInterruptedMeasurementAlsoWhileARecorderStarts() throws {
        defer { remove() }
        let (_, id) = try interrupted()
        let control = RecorderControl(directory: directory)
        func states() throws -> [MeasurementState] {
            [try control.summary(of: id).status, try #require(try control.list().first).status, try control.status().state]
        }
        #expect(try states() == [.interrupted, .interrupted, .interrupted])
        #expect(try control.summary(of: id).end == nil)
        guard let lock = try RecorderLock(directory: directory) else {
            Issue.record("cannot take the recorder lock")
            return
        }
        #expect(try states() == [.interrupted, .interrupted, .interrupted])
        let status = try control.status()
        #expect(status.recorderStarting == true)
        _ = consume lock
        #expect(try control.status().recorderStarting == nil)
    }

    @Test func theControlClientTalksToARecorderInThisProcess() throws {
        let harness = try RecorderHarness(flushInterval: 60_000)
        let control = RecorderControl(directory: harness.directory)
        harness.feed.feed(acceleration(4))
        let paused = try control.pause()
        #expect(paused.state == .paused && paused.track == 1 && paused.measurement == harness.measurement)
        #expect(paused.pid == getpid())
        // As its recorder has it, in `show` and `list` as in `status`.
        #expect(try control.summary(of: harness.measurement).status == .paused)
        #expect(try control.list().first?.status == .paused && control.status().state == .paused)
        #expect(throws: ControlFailure(kind: .notCapturing, message: LifecycleError.notCapturing(state: .paused(track: 1)).description)) {
            try control.pause()
        }
        let resumed = try control.resume {
            Issue.record("a running recorder's resume asks for no settings")
            return RecorderConfiguration(directory: "/", sources: [])
        }
        #expect(resumed.track == 2)
        #expect(try control.changeModality(to: .walking).modality == .walking)
        let status = try control.status()
        #expect(status.state == .capturing && status.recorder?.state == .capturing && status.committed?.accelerometer == 4)
        let stopped = try control.stop()
        #expect(stopped.state == .finished)
        // stop() returns once the recorder let go of the directory.
        #expect(!control.recorderIsRunning)
        #expect(harness.waitForEnd() == .some(nil))
        #expect(try harness.store.measurement(harness.measurement).status == .finished)
    }

    /// Issue 32: `list` showed 0 samples while `status` counted what waits in the flush log.
    @Test func listCountsWhatStatusCountsWhileRecording() throws {
        let harness = try RecorderHarness(flushInterval: 100)
        defer { harness.command(.stop) }
        let control = RecorderControl(directory: harness.directory)
        harness.feed.feed(acceleration(10))
        #expect(try waitUntil { try harness.committed().accelerometer == 10 })
        // Flushed into the flush log, not yet moved into the database: the case that differed.
        #expect(try harness.store.counts(of: harness.measurement).accelerometer == 0)
        let entry = try #require(try control.list().first { $0.id == harness.measurement })
        #expect(entry.counts.accelerometer == 10)
        #expect(entry.counts == (try control.status().committed))
    }

    /// Issue 32: after Ctrl-C, status kept saying `1 uploading` though nothing ran.
    @Test func anUploadIsShownAsRunningOnlyWhileAnUploaderHoldsTheDirectory() throws {
        defer { remove() }
        let (store, id) = try interrupted()
        _ = try RecorderControl(directory: directory).stop()
        try store.beginUpload(of: id, sessionURL: "http://127.0.0.1:9/s/1", totalLength: 100, sha256: nil)
        let control = RecorderControl(directory: directory)
        #expect(try control.status().uploads == ["interrupted": 1])
        guard let lock = ExclusiveFileLock(path: directory + "/upload.lock") else {
            Issue.record("cannot take the upload lock")
            return
        }
        #expect(try control.status().uploads == ["uploading": 1])
        _ = consume lock
    }

    @Test func theRecorderKeepsTheFlagsCeilingElseTheRetentionBudget() {
        var configuration = RecorderConfiguration(directory: "/d", sources: [])
        #expect(configuration.storeCeiling == nil)
        configuration.retention = RetentionPolicy(maxStoreSize: ByteSize(parsing: "2G"))
        #expect(configuration.storeCeiling == ByteSize(parsing: "2G"))
        configuration.maximumSize = ByteSize(parsing: "512M")
        #expect(configuration.storeCeiling == ByteSize(parsing: "512M"))
    }

    @Test func readinessCrossesThePipeAsTypedJSON() throws {
        for value in [Readiness.ready(measurement: 42), .failed(LaunchFailure(kind: .diskFull, message: "the disk is full"))] {
            #expect(Readiness(decoding: value.encoded()) == value)
            #expect(!value.encoded().contains(0x0A))
        }
        #expect(Readiness(decoding: Data()) == nil)
        #expect(Readiness(decoding: Data("ok 5".utf8)) == nil)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        ReadinessPipe(descriptor: fds[1]).report(.ready(measurement: 7))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fds[0], &buffer, buffer.count)
        close(fds[0])
        #expect(count > 0 && buffer[count - 1] == 0x0A)
        #expect(Readiness(decoding: Data(buffer[0..<(count - 1)])) == .ready(measurement: 7))
    }

    @Test func launchFailuresAreClassifiedByTheirCause() {
        #expect(LaunchFailure(StoreError.diskFull(path: "/d")).kind == .diskFull)
        #expect(LaunchFailure(StoreError.alreadyOpen(3)).kind == .measurementOpen)
        #expect(LaunchFailure(StoreError.cannotOpen(path: "/d", reason: "x")).kind == .io)
        #expect(LaunchFailure(LifecycleError.notOpen(state: .idle)).kind == .notOpen)
        #expect(LaunchFailure(SourceError.badRate(spec: "iio:x@0")).kind == .badSource)
        #expect(LaunchFailure(SourceError.noDevice(id: "iio:device7", directory: "/s")).kind == .notFound)
        #expect(LaunchFailure(SourceError.trace(.cannotOpen(path: "/t", reason: "gone"))).kind == .notFound)
        #expect(LaunchFailure(TraceFileError.readFailed(path: "/t", reason: "EIO")).kind == .io)
        #expect(LaunchFailure(DeviceError(path: "/dev/x", action: "open", errno: EACCES)).kind == .io)
        #expect(LaunchFailure(DeviceError(path: "/dev/x", action: "open", errno: ENODEV)).kind == .deviceUnavailable)
        struct Odd: Error {}
        #expect(LaunchFailure(Odd()).kind == .unexpected)
        let failure = LaunchFailure(StoreError.diskFull(path: "/d"))
        #expect(failure.message == StoreError.diskFull(path: "/d").description)
        #expect(LaunchFailure(failure) == failure)
    }

    @Test func theRecorderCommandLineCarriesTheConfiguration() throws {
        var configuration = RecorderConfiguration(
            directory: "/data", modality: .eBike, sources: ["trace:/r.trace", "iio:iio:device0@200"],
            sourceOptions: SourceOptions(sysfsRoot: "/fake", rate: 50, loop: true), recordTrace: "/out.trace", flushInterval: 250,
            maximumSize: ByteSize(parsing: "2M"), gnssTime: .always)
        let arguments = try RecorderLauncher.arguments(configuration, recover: false)
        #expect(Array(arguments.prefix(3)) == ["--data-dir", "/data", "--configuration"])
        #expect(Array(arguments.suffix(2)) == ["--ready-fd", "3"])
        #expect(try JSONDecoder().decode(RecorderConfiguration.self, from: Data(arguments[3].utf8)) == configuration)
        // The ride rules and the retention too: the recorder process never reads the file for them.
        configuration.ride = RideSettings(detect: .auto, resumeWithin: 30_000, minDistance: 80, payloadLimit: nil)
        configuration.retention = RetentionPolicy(keepUploadedDays: nil, maxStoreSize: ByteSize(parsing: "64M"), dropUnsent: .oldest)
        let carried = try RecorderLauncher.arguments(configuration, recover: true)
        #expect(try JSONDecoder().decode(RecorderConfiguration.self, from: Data(carried[3].utf8)) == configuration)
        #expect(carried.contains("--recover"))
    }
}
