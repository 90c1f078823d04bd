import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The medium's own faults on a real file system (issue 28, item 4): one that fills up under a
/// recorder, a serialisation, an upload storing its state, a recorder and a sync that prune for
/// room; and one that turns read-only under a running recorder. Each test mounts its own small
/// file system in a private mount namespace (``PrivateMedium``, needs root).
@Suite(.serialized) struct MediumEndToEndTests {
    static let trace = Repository.fixture("bicycle.trace")

    /// Committed samples (database and flush log) of the open measurement, from `capture status`.
    static func committed(_ medium: PrivateMedium, _ data: String) throws -> Int {
        let status = try medium.capture(["status", "--json"], data: data)
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return (object?["committed"] as? [String: Any])?["accelerometer"] as? Int ?? 0
    }

    static func json(_ result: Program.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    static func waitFor(_ seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return false
    }

    @Test(.enabled(if: PrivateMedium.canMount, "mounting a small file system needs root, unshare and nsenter"))
    func aFullFileSystemStopsCleanlyWithExit73AndCaptureResumesOnceThereIsRoom() throws {
        let medium = try PrivateMedium(tmpfsSize: "6m")
        let data = medium.mountPoint + "/data"
        let start = try medium.capture(["start", "--source", "trace:" + Self.trace, "--flush-interval", "0.25"], data: data)
        #expect(start.status == 0, "\(start.stderr)")
        let recorder = try #require(medium.recorderPID(data))
        #expect(try Self.waitFor { try Self.committed(medium, data) >= 100 })

        // Recording: the file system fills up (another program's file). Flushes go on into the
        // flush log's allocated space; the lifecycle command's commit does not fit: exit 73, one
        // line, the recorder stops, nothing committed lost.
        try medium.fill()
        usleep(1_000_000)
        let pause = try medium.capture(["pause"], data: data)
        #expect(pause.status == 73, "\(pause.stderr)")
        #expect(pause.stderr.hasPrefix("capture: the disk holding") && pause.stderr.filter { $0 == "\n" }.count == 1, "\(pause.stderr)")
        #expect(Self.waitFor { !Subprocess.isAlive(recorder) })
        let full = Self.json(try medium.capture(["status", "--json"], data: data))
        #expect(full["state"] as? String == "interrupted", "\(full)")
        #expect((full["ended"] as? [String: Any])?["kind"] as? String == "store-full", "\(full)")
        #expect(try medium.integrity(data) == "ok")

        // Room again: `capture stop` finishes it with what the flush log held.
        try medium.makeRoom()
        let stop = try medium.capture(["stop", "--json"], data: data)
        #expect(stop.status == 0, "\(stop.stderr)")
        let first = Self.json(try medium.capture(["show", "1", "--json"], data: data))
        let counts = first["counts"] as? [String: Any]
        #expect((counts?["accelerometer"] as? Int ?? 0) >= 100, "\(first)")

        // Serialising onto a full file system: exit 73, one line, no transfer file, no
        // temporary file left; the store sound.
        try medium.fill()
        let export = try medium.capture(["export", "1", "--format", "cyface", "--output", medium.mountPoint + "/1.ccyf"], data: data)
        #expect(export.status == 73, "\(export.stderr)")
        #expect(export.stderr.hasPrefix("capture: the disk holding") && export.stderr.filter { $0 == "\n" }.count == 1, "\(export.stderr)")
        let transfer = (try? FileManager.default.contentsOfDirectory(atPath: medium.inside(data + "/transfer"))) ?? []
        #expect(transfer.isEmpty, "\(transfer)")
        #expect(!FileManager.default.fileExists(atPath: medium.inside(medium.mountPoint + "/1.ccyf")))
        #expect(try medium.integrity(data) == "ok")
        // Uploading: it serialises first, the same way; nothing reaches the collector.
        let collector = try CollectorProcess()
        let upload = ["upload", "--url", collector.url, "--token-file", collector.tokenFile, "--retry-budget", "5"]
        let refused = try medium.capture(upload, data: data)
        #expect(refused.status == 73, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("is full"), "\(refused.stderr)")
        #expect(((try? collector.stored()) ?? []).isEmpty)
        #expect(try medium.integrity(data) == "ok")

        // Room again: recording and serialising work.
        try medium.makeRoom()
        let again = try medium.capture(["start", "--source", "trace:" + Self.trace, "--flush-interval", "0.25"], data: data)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.waitFor { try Self.committed(medium, data) >= 100 })
        #expect(try medium.capture(["stop"], data: data).status == 0)
        let exported = try medium.capture(["export", "1", "--format", "cyface", "--output", medium.mountPoint + "/1.ccyf"], data: data)
        #expect(exported.status == 0, "\(exported.stderr)")
        let uploaded = try medium.capture(upload, data: data)
        #expect(uploaded.status == 0, "\(uploaded.stdout)\(uploaded.stderr)")
        #expect(try collector.stored().count == 2)
        let list = try medium.capture(["list", "--json"], data: data)
        #expect(list.stdout.components(separatedBy: "\"finished\"").count - 1 == 2, "\(list.stdout)")
        #expect(try medium.integrity(data) == "ok")
    }

    @Test(.enabled(if: PrivateMedium.canMount, "mounting a small file system needs root, unshare and nsenter"))
    func aMediumTurningReadOnlyStopsTheRecorderWithOneLineAndExit74() throws {
        guard Program.require("mkfs.ext4", package: "e2fsprogs") != nil else { return }
        let medium = try PrivateMedium(ext4Megabytes: 32)
        let data = medium.mountPoint + "/data"
        let recorder = try medium.spawnCapture(
            ["start", "--foreground", "--source", "trace:" + Self.trace, "--flush-interval", "0.25"], data: data)
        defer { recorder.stop() }
        #expect(try Self.waitFor { try Self.committed(medium, data) >= 100 })
        let before = try Self.committed(medium, data)

        // The card fails: the kernel turns its file system read-only under the recorder.
        try medium.turnReadOnly()
        #expect(Self.waitFor(10) { !Subprocess.isAlive(recorder.pid) }, "the recorder went on on a read-only medium")
        let status = recorder.wait()
        #expect(status == 74, "\(recorder.stderr)")
        let lines = recorder.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("capture: ") == true, "\(recorder.stderr)")
        #expect(recorder.stderr.contains("Read-only file system"), "\(recorder.stderr)")
        #expect(try medium.integrity(data) == "ok")

        // The box boots again (fsck, mounted read-write): nothing committed is lost, and the
        // measurement is finished where its committed data ends.
        try medium.checkAndRemount()
        #expect(try medium.integrity(data) == "ok")
        let interrupted = Self.json(try medium.capture(["status", "--json"], data: data))
        #expect(interrupted["state"] as? String == "interrupted", "\(interrupted)")
        #expect(try Self.committed(medium, data) >= before)
        #expect(try medium.capture(["stop"], data: data).status == 0)
        #expect(try medium.integrity(data) == "ok")
    }

    /// Whether a run ended with exit 73 and the one disk-full line on stderr.
    static func diskFull(_ status: Int32, _ stderr: String) -> Bool {
        // Progress lines aside (`upload: measurement 1: resuming at …`, issue 46), one line: the disk's.
        let lines = stderr.split(separator: "\n").filter { !$0.hasPrefix("upload: measurement ") }
        return status == 73 && lines.count == 1 && lines[0].hasPrefix("capture: the disk holding") && stderr.hasSuffix("\n")
    }

    @Test(.enabled(if: PrivateMedium.canMount, "mounting a small file system needs root, unshare and nsenter"))
    func aDiskFillingWhileTheUploadStoresItsStateStopsWith73AndTheRideIsDeliveredOnceLater() throws {
        let medium = try PrivateMedium(tmpfsSize: "6m")
        let data = medium.mountPoint + "/data"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("capture-hold-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try shortTrace(fixes: 60).write(toFile: work + "/ride.trace", atomically: true, encoding: .utf8)
        let replay = try medium.capture(["replay", work + "/ride.trace"], data: data)
        #expect(replay.status == 0, "\(replay.stderr)")
        // The collector holds back its answer to the pre-request, then to the first chunk, then
        // to the last one, each once it acted on it (the session open, the chunk stored, the
        // ride stored), until the test has filled the disk: the store's next commit (the
        // session, the offset, the delivered mark) is the one that finds it full.
        try #"{"hold": ["pre-request", "308", "201"], "holdDirectory": "\#(work)"}"#
            .write(toFile: work + "/plan.json", atomically: true, encoding: .utf8)
        let collector = try CollectorProcess(["--faults", work + "/plan.json"])
        let upload = [
            "upload", "--url", collector.url, "--token-file", collector.tokenFile, "--retry-budget", "5", "--chunk-size", "128",
        ]
        for held in ["pre-request", "308", "201"] {
            let run = try medium.spawnCapture(upload, data: data)
            defer { run.stop() }
            let reached = Self.waitFor(30) { (try? String(contentsOfFile: work + "/held", encoding: .utf8)) == held }
            #expect(reached, "the upload never reached the \(held) answer: \(run.stderr)")
            try medium.fill()
            _ = FileManager.default.createFile(atPath: work + "/release", contents: nil)
            let status = run.wait()
            #expect(Self.diskFull(status, run.stderr), "at \(held): \(status) \(run.stdout)\(run.stderr)")
            #expect(try medium.integrity(data) == "ok", "at \(held)")
            // The collector holds the ride only once its last chunk was answered.
            #expect(try collector.stored().count == (held == "201" ? 1 : 0), "at \(held)")
            try medium.makeRoom()
        }
        // Room again: the next run asks the collector where the session stands and marks the
        // ride delivered; nothing is sent twice.
        let again = try medium.capture(upload, data: data)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(try collector.stored().count == 1)
        let shown = Self.json(try medium.capture(["show", "1", "--json"], data: data))
        #expect((shown["upload"] as? [String: Any])?["status"] as? String == "uploaded", "\(shown)")
        #expect(try medium.integrity(data) == "ok")
    }

    /// A 12 MiB medium, its data directory, a collector, and the device's configuration (as
    /// environment) that delivers to it.
    static func deviceOnAMedium() throws -> (PrivateMedium, String, CollectorProcess, [String]) {
        let medium = try PrivateMedium(tmpfsSize: "12m")
        let collector = try CollectorProcess()
        let device = ["CAPTURE_UPLOAD_URL=\(collector.url)", "CAPTURE_TOKEN_FILE=\(collector.tokenFile)", "CAPTURE_UPLOAD_MIN_WAITING=1"]
        return (medium, medium.mountPoint + "/data", collector, device)
    }

    /// The ids `capture list` shows.
    static func ids(_ medium: PrivateMedium, _ data: String) throws -> [Int64] {
        let list = try medium.capture(["list", "--json"], data: data)
        return ((try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int64 }
    }

    @Test(.enabled(if: PrivateMedium.canMount, "mounting a small file system needs root, unshare and nsenter"))
    func aRecorderOnAFullFileSystemPrunesTheDeliveredRideAndGoesOnThenStopsWith73WhenNoneIsLeft() throws {
        let (medium, data, collector, device) = try Self.deviceOnAMedium()
        // One delivered ride (1.1 MB in the store, its transfer file 0.56 MB beside it).
        #expect(try medium.capture(["replay", Repository.fixture("bicycle.trace")], data: data, environment: device).status == 0)
        let synced = try medium.capture(["sync", "--now"], data: data, environment: device)
        let delivered = try collector.stored().count
        #expect(synced.status == 0 && delivered == 1, "\(synced.stdout)\(synced.stderr)")
        let start = ["start", "--source", "trace:" + Repository.fixture("car.trace"), "--flush-interval", "0.25"]
        #expect(try medium.capture(start, data: data, environment: device).status == 0)
        #expect(try Self.waitFor { try Self.committed(medium, data) >= 100 })

        // Another program fills the file system. The next commit (`pause`'s) does not fit: the
        // recorder prunes the delivered ride for room (its journal needs room even to delete:
        // the ride's cached transfer file goes first) and goes on.
        try medium.fill()
        usleep(1_000_000)
        let pause = try medium.capture(["pause"], data: data)
        #expect(pause.status == 0, "\(pause.stderr)")
        #expect(try Self.ids(medium, data) == [2])
        #expect(try medium.capture(["resume"], data: data).status == 0)
        #expect(Self.json(try medium.capture(["status", "--json"], data: data))["state"] as? String == "capturing")
        #expect(try medium.integrity(data) == "ok")

        // Full again, nothing delivered left: the next commit stops the recording, exit 73.
        try medium.fill(name: "filler2")
        usleep(1_000_000)
        let stopped = try medium.capture(["pause"], data: data)
        #expect(Self.diskFull(stopped.status, stopped.stderr), "\(stopped.status) \(stopped.stderr)")
        let full = Self.json(try medium.capture(["status", "--json"], data: data))
        #expect((full["ended"] as? [String: Any])?["kind"] as? String == "store-full", "\(full)")
        #expect(try medium.integrity(data) == "ok")

        // Room again: the interrupted ride is finished, and recording resumes.
        try medium.makeRoom()
        try medium.makeRoom(name: "filler2")
        #expect(try medium.capture(["stop"], data: data).status == 0)
        #expect(try medium.capture(start, data: data, environment: device).status == 0)
        #expect(try Self.waitFor { try Self.committed(medium, data) >= 100 })
        #expect(try medium.capture(["stop"], data: data).status == 0)
        #expect(try Self.ids(medium, data) == [2, 3])
        #expect(try medium.integrity(data) == "ok")
        let delivery = Self.json(try medium.capture(["status", "--json"], data: data, environment: device))["delivery"] as? [String: Any]
        #expect(delivery?["discarded"] as? Int == 0, "\(delivery ?? [:])")
    }

    @Test(.enabled(if: PrivateMedium.canMount, "mounting a small file system needs root, unshare and nsenter"))
    func syncOnAFullFileSystemPrunesTheDeliveredRideForRoomAndDeliversOr73WhenNoneIsLeft() throws {
        let (medium, data, collector, device) = try Self.deviceOnAMedium()
        let ride = ["replay", Repository.fixture("bicycle.trace")]
        #expect(try medium.capture(ride, data: data, environment: device).status == 0)
        #expect(try medium.capture(["sync", "--now"], data: data, environment: device).status == 0)
        #expect(try medium.capture(ride, data: data, environment: device).status == 0)

        // Full: ride 2's transfer file does not fit. The pass prunes the delivered ride 1 for
        // room, as the recorder does, and goes on: ride 2 is delivered.
        try medium.fill()
        let sync = try medium.capture(["sync", "--now"], data: data, environment: device)
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        #expect(try collector.stored().count == 2)
        #expect(try Self.ids(medium, data) == [2])
        #expect(try medium.integrity(data) == "ok")

        // Full with nothing delivered left (ride 2 pruned, ride 3 waiting): exit 73, one line.
        try medium.makeRoom()
        #expect(try medium.capture(ride, data: data, environment: device).status == 0)
        let prune = try medium.capture(["prune"], data: data, environment: device + ["CAPTURE_RETENTION_KEEP_UPLOADED_DAYS=0"])
        let kept = try Self.ids(medium, data)
        #expect(prune.status == 0 && kept == [3], "\(prune.stdout)\(prune.stderr)")
        try medium.fill()
        let refused = try medium.capture(["sync", "--now"], data: data, environment: device)
        #expect(Self.diskFull(refused.status, refused.stderr), "\(refused.status) \(refused.stdout)\(refused.stderr)")
        #expect(try collector.stored().count == 2)
        #expect(try medium.integrity(data) == "ok")

        // Room again: delivered, and recording works.
        try medium.makeRoom()
        #expect(try medium.capture(["sync", "--now"], data: data, environment: device).status == 0)
        #expect(try collector.stored().count == 3)
        let start = ["start", "--source", "trace:" + Repository.fixture("car.trace"), "--flush-interval", "0.25"]
        #expect(try medium.capture(start, data: data, environment: device).status == 0)
        #expect(try Self.waitFor { try Self.committed(medium, data) >= 100 })
        #expect(try medium.capture(["stop"], data: data).status == 0)
        #expect(try medium.integrity(data) == "ok")
    }
}
