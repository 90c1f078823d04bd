import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The shell commands against a real background recorder.
@Suite(.serialized) struct LifecycleEndToEndTests {
    @Test func startPauseResumeModalityStopShow() throws {
        let cli = CLI()
        let start = try cli.run(["start", "--modality", "car", "--source", "trace:" + cli.fixture("car.trace")])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout == "1\n")
        #expect(try cli.waitForCommitted(50))
        let status = try cli.json(["status"])
        #expect(status["state"] as? String == "capturing")
        let recorder = status["recorder"] as? [String: Any]
        #expect(recorder?["pid"] as? Int == cli.recorderPID.map(Int.init))

        #expect(try cli.run(["pause"]).status == 0)
        // Illegal transitions: one line on stderr, a documented code, nothing changed on disk.
        let before = try cli.databaseDump()
        let pauseAgain = try cli.run(["pause"])
        #expect(pauseAgain.status == 5)
        #expect(pauseAgain.stderr.hasPrefix("capture: ") && pauseAgain.stderr.filter { $0 == "\n" }.count == 1)
        #expect(try cli.run(["start", "--source", "trace:" + cli.fixture("car.trace")]).status == 3)
        #expect(try cli.run(["modality", "skateboard"]).status == 64)
        #expect(try cli.databaseDump() == before)

        #expect(try cli.json(["resume"])["track"] as? Int == 2)
        #expect(try cli.run(["resume"]).status == 6)
        let walking = try cli.run(["modality", "walking"])
        #expect(walking.status == 0 && walking.stdout == "measurement 1 is now WALKING (capturing, track 2)\n", "\(walking.stdout)")
        // The same modality again: ignored, and said so.
        let again = try cli.run(["modality", "WALKING"])
        #expect(again.status == 0 && again.stdout == "measurement 1 is already WALKING (capturing, track 2)\n", "\(again.stdout)")
        let againJSON = try cli.json(["modality", "walking"])
        #expect(againJSON["outcome"] as? String == "unchanged" && againJSON["modality"] as? String == "WALKING")
        #expect(try cli.waitForCommitted(150))
        let stop = try cli.json(["stop"])
        #expect(stop["state"] as? String == "finished" && stop["measurement"] as? Int == 1, "\(stop)")
        #expect(cli.recorderPID == nil)

        let show = try cli.json(["show", "1"])
        let events = (show["events"] as? [[String: Any]] ?? []).map { ($0["type"] as? String ?? "") + ($0["value"] as? String ?? "") }
        #expect(
            events == [
                "LIFECYCLE_START", "MODALITY_TYPE_CHANGECAR", "LIFECYCLE_PAUSE", "LIFECYCLE_RESUME",
                "MODALITY_TYPE_CHANGEWALKING", "LIFECYCLE_STOP",
            ])
        let tracks = show["tracks"] as? [[String: Any]] ?? []
        #expect(tracks.count == 2)
        #expect(((tracks.last?["counts"] as? [String: Any])?["accelerometer"] as? Int ?? 0) > 0)
        #expect(try cli.run(["stop"]).status == 4)
    }

    @Test func killNineLosesNothingCommittedAndStopFinishesIt() throws {
        let cli = CLI()
        #expect(try cli.run(["start", "--source", "trace:" + cli.fixture("bicycle.trace"), "--flush-interval", "0.2"]).status == 0)
        #expect(try cli.waitForCommitted(100))
        let pid = try #require(cli.recorderPID)
        let committedBefore = try Store(directory: cli.dataDirectory).counts(of: 1).accelerometer
        kill(pid, SIGKILL)
        #expect(cli.waitFor { kill(pid, 0) != 0 })
        let store = try Store(directory: cli.dataDirectory)
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.counts(of: 1).accelerometer >= committedBefore)
        #expect(try cli.json(["status"])["state"] as? String == "interrupted")
        #expect(try cli.run(["pause"]).status == 5)
        let last = try store.lastTimestamp(of: 1)
        #expect(try cli.json(["stop"])["state"] as? String == "finished")
        let record = try store.measurement(1)
        #expect(record.status == .finished)
        #expect(record.endTime == last)
        #expect(try store.integrityCheck() == "ok")
        #expect(try cli.json(["status"])["state"] as? String == "idle")
    }

    @Test func resumeAfterKillNineRestartsOnANewTrack() throws {
        let cli = CLI()
        #expect(try cli.run(["start", "--source", "trace:" + cli.fixture("bicycle.trace")]).status == 0)
        #expect(try cli.waitForCommitted(100))
        let pid = try #require(cli.recorderPID)
        kill(pid, SIGKILL)
        #expect(cli.waitFor { kill(pid, 0) != 0 })
        let resumed = try cli.json(["resume"])
        #expect(resumed["state"] as? String == "capturing")
        #expect(resumed["track"] as? Int == 2)
        #expect(cli.recorderPID != nil && cli.recorderPID != pid)
        // Durable on the new track (the database, or the flush log on its way there) …
        let before = try Store(directory: cli.dataDirectory).counts(of: 1).accelerometer
        #expect(try cli.waitForCommitted(before + 1))
        let stop = try cli.run(["stop"])
        #expect(stop.status == 0 && stop.stdout == "measurement 1 stopped (finished, track 2)\n", "\(stop.stdout)\(stop.stderr)")
        // … and in the database once stopped.
        #expect(try Store(directory: cli.dataDirectory).counts(of: 1, track: 2).accelerometer > 0)
        let show = try cli.json(["show", "1"])
        let types = (show["events"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        #expect(types == ["LIFECYCLE_START", "MODALITY_TYPE_CHANGE", "LIFECYCLE_PAUSE", "LIFECYCLE_RESUME", "LIFECYCLE_STOP"])
    }

    @Test func sigtermStopsTheMeasurementCleanly() throws {
        let cli = CLI()
        #expect(try cli.run(["start", "--source", "trace:" + cli.fixture("car.trace")]).status == 0)
        #expect(try cli.waitForCommitted(10))
        let pid = try #require(cli.recorderPID)
        kill(pid, SIGTERM)
        #expect(cli.waitFor { kill(pid, 0) != 0 })
        let store = try Store(directory: cli.dataDirectory)
        #expect(try store.measurement(1).status == .finished)
        #expect(try store.events(of: 1).last?.type == .lifecycleStop)
    }

    @Test func foregroundStopsOnCtrlC() throws {
        let cli = CLI()
        let process = try Subprocess(
            ["start", "--foreground", "--source", "trace:" + cli.fixture("car.trace"), "--data-dir", cli.dataDirectory])
        #expect(try cli.waitForCommitted(10))
        kill(process.pid, SIGINT)
        #expect(process.wait() == 0, "\(process.stderr)")
        #expect(process.stdout == "1\n")
        #expect(try Store(directory: cli.dataDirectory).measurement(1).status == .finished)
    }

    /// A Unix socket path holds at most 107 bytes; deeper data directories work, their socket
    /// being in the runtime directory (a long runtime directory goes through /proc/self/fd).
    @Test func aDataDirectoryPathLongerThanASocketPathWorks() throws {
        let cli = CLI(depth: 4)
        #expect((cli.dataDirectory + "/control.sock").utf8.count > 108)
        #expect(try cli.run(["start", "--source", "trace:" + cli.fixture("car.trace")]).status == 0)
        #expect(try cli.waitForCommitted(1))
        #expect(try cli.run(["pause"]).status == 0)
        #expect(try cli.run(["stop"]).status == 0)
    }

    @Test func commandsWithNothingOpenFailAndCreateNothing() throws {
        let cli = CLI()
        for (arguments, code) in [
            (["pause"], Int32(4)), (["resume"], 4), (["stop"], 4), (["modality", "car"], 4), (["modality", "skateboard"], 64),
            (["start"], 66), (["start", "--modality", "rocket", "--source", "trace:" + cli.fixture("car.trace")], 64),
            (["start", "--source", "trace:missing.trace"], 66), (["start", "--source", "gps:x"], 64),
            (["show", "1"], 66), (["delete", "1", "--yes"], 66), (["start", "--flush-interval", "0", "--source", "trace:x"], 64),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == code, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/capture.sqlite"))
        #expect(try cli.json(["status"])["state"] as? String == "idle")
    }
}
