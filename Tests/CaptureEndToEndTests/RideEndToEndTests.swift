import CaptureTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// A box nobody touches (`ride.detect: auto`): the built `capture start --foreground
/// --continue-interrupted`, as capture-record.service runs it, with a fake IIO accelerometer and
/// an NMEA receiver on a pty. Motion, still, motion; a power cut shorter and longer than
/// `ride.resume_within`.
@Suite struct RideEndToEndTests {
    /// The environment of the recorder: no configuration file, the ride keys short for a test.
    static func environment(_ data: String, _ extra: [String] = []) -> [String] {
        [
            "-i", "PATH=/usr/bin:/bin", "HOME=\(data)-home", "CAPTURE_CONFIG=/dev/null", "CAPTURE_RIDE_DETECT=auto",
            "CAPTURE_RIDE_END_AFTER_STILL=3s", "CAPTURE_RIDE_PRE_ROLL=2s", "CAPTURE_RIDE_MIN_DISTANCE=20m",
        ] + Program.runtimeDirectoryVariable + extra
    }

    /// What the fake devices play: standing or moving, switched by the test.
    final class World: Sendable {
        let moving = Atomic<Bool>(false)
        let stopped = Atomic<Bool>(false)
        /// Metres east of the start, in millimetres.
        let east = Atomic<Int>(0)
        /// How far one receiver epoch (a quarter second) moves east while moving, millimetres.
        let step = Atomic<Int>(2_500)
    }

    /// The accelerometer: scans at about 100 Hz; moving shakes it by ±2 m/s².
    static func accelerometer(_ node: String, _ world: World) -> Thread {
        Thread {
            let fd = open(node, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var now = timespec()
            var index = 0
            while !world.stopped.load(ordering: .relaxed) {
                clock_gettime(CLOCK_REALTIME, &now)
                var scan = [UInt8]()
                let shake: Int16 = world.moving.load(ordering: .relaxed) ? (index % 2 == 0 ? 200 : -200) : 0
                for value in [Int16(0), Int16(0), 981 + shake] { withUnsafeBytes(of: value.littleEndian) { scan += $0 } }
                scan += [0, 0]
                let ns = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
                withUnsafeBytes(of: ns.littleEndian) { scan += $0 }
                guard scan.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 else { return }
                index += 1
                usleep(10_000)
            }
        }
    }

    /// The box: the recorder as capture-record.service runs it, on a fake accelerometer and a
    /// receiver on a pty, in a data directory of its own; `end()` stops all of it.
    final class Box {
        let sysfs: FakeSysfs
        let terminal: PseudoTerminal
        let world = World()
        let cli: CLI
        private(set) var recorder: Subprocess

        /// - Parameter prepare: readies the data directory before the recorder starts (rides
        ///   stored already, say) and returns more of the recorder's environment.
        init(_ environment: [String] = [], prepare: (CLI) throws -> [String] = { _ in [] }) throws {
            signal(SIGPIPE, SIG_IGN)
            let cli = CLI()
            self.cli = cli
            let more = try prepare(cli)
            sysfs = try DeviceEndToEndTests.fakeRoot()
            terminal = try PseudoTerminal()
            RideEndToEndTests.accelerometer(sysfs.path + "/dev/iio:device0", world).start()
            recorder = try Self.recorder(cli, sysfs, terminal, environment + more)
            terminal.closeSlave()
        }

        private static func recorder(_ cli: CLI, _ sysfs: FakeSysfs, _ terminal: PseudoTerminal, _ environment: [String]) throws
            -> Subprocess
        {
            try Subprocess(
                RideEndToEndTests.environment(cli.dataDirectory, environment) + [
                    CLI.executable, "start", "--foreground", "--continue-interrupted", "--sysfs-root", sysfs.path,
                    "--source", "iio:iio:device0", "--source", "nmea:" + terminal.path, "--flush-interval", "0.2",
                    "--data-dir", cli.dataDirectory,
                ], bytes: [], executable: "/usr/bin/env")
        }

        /// The box boots again after a power cut (the recorder was killed): the same recorder,
        /// its accelerometer written again (a FIFO's writer goes when its reader does).
        func boot(_ environment: [String] = []) throws {
            RideEndToEndTests.accelerometer(sysfs.path + "/dev/iio:device0", world).start()
            recorder = try Self.recorder(cli, sysfs, terminal, environment)
        }

        /// Plays `seconds` of the world, four receiver epochs a second; returns when it played.
        @discardableResult
        func play(_ seconds: Double, moving: Bool) -> (from: Int64, to: Int64) {
            world.moving.store(moving, ordering: .relaxed)
            let from = RideEndToEndTests.now()
            for _ in 0..<Int(seconds * 4) {
                _ = terminal.write(RideEndToEndTests.epoch(world))
                usleep(250_000)
            }
            return (from, RideEndToEndTests.now())
        }

        /// A power cut as far as the recorder goes: killed at once, nothing of its own run after.
        func cut() {
            kill(recorder.pid, SIGKILL)
            _ = recorder.wait()
        }

        func end() {
            recorder.stop()
            world.stopped.store(true, ordering: .relaxed)
            sysfs.remove()
        }
    }

    @Test("capture start in the background with ride.detect: auto says the recorder is armed, not measurement 0")
    func backgroundStartSaysArmed() throws {
        let sysfs = try DeviceEndToEndTests.fakeRoot()
        defer { sysfs.remove() }
        let cli = CLI()
        let start = try Subprocess(
            Self.environment(cli.dataDirectory) + [
                CLI.executable, "start", "--sysfs-root", sysfs.path, "--source", "iio:iio:device0", "--data-dir", cli.dataDirectory,
            ], bytes: [], executable: "/usr/bin/env")
        #expect(start.wait() == 0, "\(start.stderr)")
        let line = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("armed: recorder "), "\(line)")
        let pid = try #require(Int32(line.dropFirst("armed: recorder ".count).prefix { $0.isNumber }))
        defer { kill(pid, SIGTERM) }
        let status = try cli.json(["status"])
        #expect((status["ride"] as? [String: Any])?["state"] as? String == "armed", "\(status)")
        #expect((status["recorder"] as? [String: Any])?["pid"] as? Int == Int(pid), "\(status)")
        // Issue 46: the ids it reserved for rides that never began go back when it ends; the next
        // measurement was 3, not 1.
        kill(pid, SIGTERM)
        #expect(cli.waitFor { kill(pid, 0) != 0 }, "the recorder did not end")
        #expect(try cli.run(["replay", Repository.fixture("export/ride.trace")]).stdout == "1\n")
    }

    /// One NMEA epoch at the real time now: 10 m/s east while moving, standing otherwise.
    static func epoch(_ world: World) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ms = (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000) / 10 * 10
        let (time, date) = ClockEndToEndTests.nmeaTime(ms)
        let moving = world.moving.load(ordering: .relaxed)
        let east = Double(world.east.add(moving ? world.step.load(ordering: .relaxed) : 0, ordering: .relaxed).newValue) / 1000
        // 13.73° E at 51.05° N: one minute of longitude is about 1167 m.
        let longitude = String(format: "013%07.4f", 44.238 + east / 1167)
        let knots = moving ? "19.4" : "0.0"
        return ClockEndToEndTests.sentence("GPRMC,\(time),A,5103.0240,N,\(longitude),E,\(knots),90.0,\(date),,,A")
            + ClockEndToEndTests.sentence("GPGGA,\(time),5103.0240,N,\(longitude),E,1,08,0.9,112.0,M,46.0,M,,")
    }

    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    @Test("motion, still, motion: a ride per motion with its pre-roll and its still tail cut; capture stop ends the ride, SIGTERM the recorder")
    func motionStillMotion() throws {
        let box = try Box()
        defer { box.end() }
        let (cli, recorder) = (box.cli, box.recorder)
        var moved: [(from: Int64, to: Int64)] = []
        func play(_ seconds: Double, moving: Bool) {
            let played = box.play(seconds, moving: moving)
            if moving { moved.append(played) }
        }
        play(3, moving: false)
        #expect(try cli.json(["status"])["ride"].flatMap { ($0 as? [String: Any])?["state"] as? String } == "armed")
        // Armed writes nothing.
        #expect(try cli.run(["list", "--json"]).stdout.filter { !$0.isWhitespace } == "[]")
        play(8, moving: true)
        #expect(try cli.json(["status"])["measurement"] as? Int == 1)
        play(6, moving: false)
        // Still for 3 s ended ride 1; the recorder is armed again.
        let armed = try cli.json(["status"])
        #expect((armed["ride"] as? [String: Any])?["state"] as? String == "armed", "\(armed)")
        play(5, moving: true)
        // Stopped while moving, the next ride would begin at once: the bike stands first.
        play(2, moving: false)
        let stopped = try cli.run(["stop", "--json"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stdout.contains("\"measurement\" : 2"), "\(stopped.stdout)")
        #expect(kill(recorder.pid, 0) == 0, "capture stop ended the recorder, not the ride")
        // Armed, there is no ride to stop: exit 4, as with no measurement open.
        let again = try cli.run(["stop"])
        #expect(again.status == 4, "\(again.stderr)")
        kill(recorder.pid, SIGTERM)
        #expect(recorder.wait() == 0, "\(recorder.stderr)")

        let first = try cli.json(["show", "1"])
        let start = Int64(try #require(first["start"] as? Int))
        let end = Int64(try #require(first["end"] as? Int))
        // The pre-roll: samples from before motion was detected (within a second of it), at most 2 s.
        #expect(start < moved[0].from + 1_000 && start >= moved[0].from - 2_500, "start \(start), motion from \(moved[0].from)")
        // The still tail cut: the ride ends within a few seconds of the last motion.
        #expect(end >= moved[0].to - 500 && end <= moved[0].to + 3_000, "end \(end), motion to \(moved[0].to)")
        #expect((first["distanceMeters"] as? Double ?? 0) > 50)
        let journal = try String(contentsOfFile: cli.dataDirectory + "/attachments/1/recorder.jsonl", encoding: .utf8)
        for event in ["\"ride_begun\"", "\"still\"", "\"ride_ended\"", "\"armed\""] {
            #expect(journal.contains(event), "\(event) not in \(journal)")
        }
        let second = try cli.json(["show", "2"])
        #expect((second["events"] as? [[String: Any]])?.last?["type"] as? String == "LIFECYCLE_STOP")
        let metrics = try cli.run(["metrics"]).stdout
        #expect(metrics.contains("capture_rides_total{event=\"begun\",by=\"motion\"} 2"), "\(metrics)")
        #expect(metrics.contains("capture_rides_total{event=\"ended\",by=\"motion\"} 1"))
        #expect(metrics.contains("capture_rides_total{event=\"ended\",by=\"command\"} 1"))
    }

    @Test("a ride over the payload limit is continued as new measurements, each under the limit, end to start")
    func overThePayloadLimit() throws {
        // 64 KiB of the bound are overhead; the rest holds about 5 s of a 100 Hz accelerometer.
        let box = try Box(["CAPTURE_COLLECTOR_PAYLOAD_LIMIT=80K"])
        defer { box.end() }
        let (cli, terminal, world, recorder) = (box.cli, box.terminal, box.world, box.recorder)
        world.moving.store(true, ordering: .relaxed)
        for _ in 0..<60 {
            _ = terminal.write(Self.epoch(world))
            usleep(250_000)
        }
        kill(recorder.pid, SIGTERM)
        #expect(recorder.wait() == 0, "\(recorder.stderr)")
        let listed = try JSONSerialization.jsonObject(with: Data(try cli.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]] ?? []
        #expect(listed.count >= 2, "\(listed)")
        var previousEnd: Int?
        for id in 1...listed.count {
            let shown = try cli.json(["show", "\(id)"])
            let counts = shown["counts"] as? [String: Int] ?? [:]
            // The recorder's bound: 25 bytes a motion sample, 100 a fix, 64 KiB.
            let bound = 25 * (counts["accelerometer"] ?? 0) + 100 * (counts["locations"] ?? 0) + 65_536
            #expect(bound < 80 * 1024, "measurement \(id): \(counts)")
            if let previousEnd { #expect(shown["start"] as? Int == previousEnd, "measurement \(id) starts where \(id - 1) ends") }
            previousEnd = shown["end"] as? Int
        }
        #expect(try cli.run(["metrics"]).stdout.contains("capture_rides_total{event=\"begun\",by=\"size\"} \(listed.count - 1)"))
    }

    @Test("a power cut shorter than ride.resume_within continues the ride on a new track; a longer one finishes it and a new ride begins")
    func powerCuts() throws {
        let cli = CLI()
        let trace = "trace:" + Repository.fixture("bicycle.trace")
        func recorder(resumeWithin: String) throws -> Subprocess {
            try Subprocess(
                Self.environment(cli.dataDirectory, ["CAPTURE_RIDE_DETECT=off", "CAPTURE_RIDE_RESUME_WITHIN=\(resumeWithin)"]) + [
                    CLI.executable, "start", "--foreground", "--continue-interrupted", "--loop", "--flush-interval", "0.1",
                    "--source", trace, "--data-dir", cli.dataDirectory,
                ], bytes: [], executable: "/usr/bin/env")
        }
        let first = try recorder(resumeWithin: "2m")
        defer { first.stop() }
        #expect(try cli.waitForCommitted(1))
        kill(first.pid, SIGKILL)
        _ = first.wait()
        // A short cut: the same measurement goes on, on track 2.
        let second = try recorder(resumeWithin: "2m")
        defer { second.stop() }
        #expect(try cli.waitFor { (try cli.json(["status"])["track"] as? Int) == 2 })
        #expect(try cli.json(["status"])["measurement"] as? Int == 1)
        kill(second.pid, SIGKILL)
        _ = second.wait()
        let committed = try #require((try cli.json(["show", "1"])["counts"] as? [String: Any])?["accelerometer"] as? Int)
        // A long cut (longer than 1 s here): measurement 1 is finished as it stands, 2 begins.
        usleep(1_200_000)
        let third = try recorder(resumeWithin: "1s")
        defer { third.stop() }
        #expect(try cli.waitFor { (try cli.json(["status"])["measurement"] as? Int) == 2 })
        let finished = try cli.json(["show", "1"])
        #expect((finished["events"] as? [[String: Any]])?.last?["type"] as? String == "LIFECYCLE_STOP")
        let kept = (finished["counts"] as? [String: Any])?["accelerometer"] as? Int ?? 0
        #expect(committed > 0 && kept >= committed, "nothing committed is lost: \(kept) of \(committed)")
        let journal = try String(contentsOfFile: cli.dataDirectory + "/attachments/1/recorder.jsonl", encoding: .utf8)
        #expect(journal.contains("\"by\":\"interruption\""), "\(journal)")
        #expect(try cli.run(["metrics"]).stdout.contains("capture_rides_total{event=\"ended\",by=\"power\"} 1"))
        kill(third.pid, SIGTERM)
        #expect(third.wait() == 0, "\(third.stderr)")
    }
}
