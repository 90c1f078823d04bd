import CaptureCore
import CaptureRecorder
import CaptureStorage
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The data directory holds data only: a recorder's socket, pid file and lock are in its runtime
/// directory, so a data directory on a memory card's file system (FAT, exFAT, FUSE: no sockets)
/// records as any other (issue 28, item 8).
@Suite(.serialized) struct RuntimeDirectoryEndToEndTests {
    /// Polls `condition` every 50 ms for up to `seconds`.
    func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// A Unix socket bound at `path` (not listening), or nil if it cannot be made there.
    static func boundSocket(at path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether a Unix socket can be bound at `path` (removed again if it could).
    static func canBindSocket(at path: String) -> Bool {
        guard let fd = boundSocket(at: path) else { return false }
        close(fd)
        unlink(path)
        return true
    }

    /// Starts a recorder on `card`, pauses, resumes and stops it, and checks the measurement and
    /// that nothing of the recorder's was put on the card.
    func recordStopAndCheck(on card: MountedImage) throws {
        let cli = CLI(dataDirectory: card.point + "/data")
        let started = try cli.run(["start", "--source", "trace:" + cli.fixture("car.trace")])
        try #require(started.status == 0, "capture start on \(card.point): \(started.stderr)")
        #expect(try cli.waitForCommitted(10))

        // While it records: its pid file, socket and lock are in the runtime directory, and the
        // card holds none of them.
        let pid = try #require(cli.recorderPID, "no pid file at \(cli.runtime.pidFile)")
        #expect(kill(pid, 0) == 0)
        for path in [cli.runtime.controlSocket, cli.runtime.lockFile] {
            #expect(FileManager.default.fileExists(atPath: path), "\(path)")
        }
        for name in RuntimeDirectory.formerNames {
            #expect(!FileManager.default.fileExists(atPath: cli.dataDirectory + "/" + name), "\(name) on the card")
        }
        // Commands reach it over the socket.
        #expect(try cli.run(["pause"]).status == 0)
        let paused = try cli.json(["status"])
        #expect(paused["state"] as? String == "paused", "\(paused)")
        let before = (paused["committed"] as? [String: Any])?["accelerometer"] as? Int ?? 0
        #expect(try cli.run(["resume"]).status == 0)
        #expect(try cli.waitForCommitted(before + 10))
        let stopped = try cli.json(["stop"])
        #expect(stopped["state"] as? String == "finished", "\(stopped)")
        #expect(cli.waitFor(10) { kill(pid, 0) != 0 }, "the recorder did not exit")

        // The measurement is whole: a sound store, both tracks, every committed sample, the stop.
        let store = try Store(directory: cli.dataDirectory)
        #expect(try store.integrityCheck() == "ok")
        let record = try store.measurement(1)
        #expect(record.status == .finished && record.trackCount == 2, "\(record)")
        #expect(try store.counts(of: 1).accelerometer >= before + 10)
        let lifecycle = try store.events(of: 1).map(\.type).filter { $0 != .modalityTypeChange }
        #expect(lifecycle == [.lifecycleStart, .lifecyclePause, .lifecycleResume, .lifecycleStop], "\(lifecycle)")
        let gpx = card.root + "/ride.gpx"
        let exported = try cli.run(["export", "1", "--format", "gpx", "-o", gpx])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect((try? String(contentsOfFile: gpx, encoding: .utf8))?.contains("<trkpt") == true)
        #expect(RuntimeDirectory.formerNames.allSatisfy { !FileManager.default.fileExists(atPath: cli.dataDirectory + "/" + $0) })
    }

    /// Two data directories on one machine, each with its recorder, under one
    /// `XDG_RUNTIME_DIR`: two runtime directories, each command reaches its own recorder. One
    /// data directory holds what an older capture's crashed recorder left (a dead socket, a pid
    /// file, a lock file): nothing reads them, nothing changes them.
    @Test func twoDataDirectoriesHaveTwoRecordersAndAnOldRecordersFilesConfuseNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-e2e-\(UUID().uuidString)").path
        let run = root + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = ["XDG_RUNTIME_DIR": run]
        let (a, b) = (root + "/a", root + "/b")
        var started: [pid_t] = []
        defer { for pid in started { kill(pid, SIGKILL) } }
        func capture(_ arguments: [String], _ data: String) throws -> CLI.Result {
            let process = try Subprocess(
                ["-i", "PATH=/usr/bin:/bin", "HOME=\(root)", "CAPTURE_CONFIG=/dev/null", "XDG_RUNTIME_DIR=\(run)", CLI.executable]
                    + arguments + ["--data-dir", data, "--json"], input: nil, executable: "/usr/bin/env")
            let status = process.wait()
            return CLI.Result(status: status, stdout: process.stdout, stderr: process.stderr)
        }
        func object(_ result: CLI.Result) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        }

        // An older capture's recorder died in a: its socket (bound, nobody listening), its pid
        // (of a process that runs: init's) and its lock file stayed in the data directory.
        try FileManager.default.createDirectory(atPath: a, withIntermediateDirectories: true)
        let stale = try #require(Self.boundSocket(at: a + "/control.sock"))
        close(stale)
        #expect(FileManager.default.createFile(atPath: a + "/recorder.pid", contents: Data("1\n".utf8)))
        #expect(FileManager.default.createFile(atPath: a + "/recorder.lock", contents: nil))

        for data in [a, b] {
            let result = try capture(["start", "--source", "trace:" + Repository.fixture("car.trace")], data)
            #expect(result.status == 0, "\(data): \(result.stderr)")
            if let pid = object(result)["pid"] as? Int { started.append(pid_t(pid)) }
        }
        try #require(started.count == 2)
        let runtimes = [a, b].map { RuntimeDirectory(dataDirectory: $0, environment: environment) }
        #expect(runtimes[0].base == run + "/capture" && runtimes[0].key != runtimes[1].key)
        for (runtime, pid) in zip(runtimes, started) {
            #expect((try? String(contentsOfFile: runtime.pidFile, encoding: .utf8)) == "\(pid)\n")
            #expect(FileManager.default.fileExists(atPath: runtime.controlSocket))
        }
        // Each command reaches its own recorder.
        #expect(object(try capture(["pause"], a))["state"] as? String == "paused")
        let statusA = object(try capture(["status"], a))
        let statusB = object(try capture(["status"], b))
        #expect(statusA["state"] as? String == "paused" && statusB["state"] as? String == "capturing", "\(statusA) \(statusB)")
        #expect((statusA["recorder"] as? [String: Any])?["pid"] as? Int == Int(started[0]))
        #expect((statusB["recorder"] as? [String: Any])?["pid"] as? Int == Int(started[1]))
        for data in [a, b] {
            #expect(object(try capture(["stop"], data))["state"] as? String == "finished", "\(data)")
        }
        for pid in started { #expect(waitUntil(seconds: 10) { kill(pid, 0) != 0 }, "recorder \(pid) did not exit") }
        // The old files are as they were, and b holds none.
        #expect((try? String(contentsOfFile: a + "/recorder.pid", encoding: .utf8)) == "1\n")
        var info = stat()
        #expect(lstat(a + "/control.sock", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK)
        #expect(RuntimeDirectory.formerNames.allSatisfy { !FileManager.default.fileExists(atPath: b + "/" + $0) })
    }

    /// exFAT through FUSE: no socket can be made on it (`bind` fails, the error the issue saw),
    /// yet a recorder whose data directory is there starts, records, is stopped, and its
    /// measurement is intact.
    @Test func aDataDirectoryOnFUSEExFATRecords() throws {
        let fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC)
        try #require(fuse >= 0, "FUSE cannot work here: /dev/fuse: \(String(cString: strerror(errno)))")
        close(fuse)
        let card = try MountedImage(.exfatFUSE)
        defer { card.unmount() }
        #expect(MountedImage.fileSystemType(at: card.point) == "fuseblk")
        #expect(!Self.canBindSocket(at: card.point + "/probe.sock"), "exFAT took a socket: this test would not show anything")
        try recordStopAndCheck(on: card)
    }

    /// vfat through the kernel, where the kernel has it.
    @Test(.enabled(if: MountedImage.kernelHas("vfat"), "this kernel has no vfat file system (/proc/filesystems)"))
    func aDataDirectoryOnLoopMountedVFATRecords() throws {
        let card = try MountedImage(.vfat)
        defer { card.unmount() }
        #expect(MountedImage.fileSystemType(at: card.point) == "vfat")
        try recordStopAndCheck(on: card)
    }
}
