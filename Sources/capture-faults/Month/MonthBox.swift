import Foundation
import Glibc
import Synchronization

/// The hardware of the simulated box of ``Month``: an IIO accelerometer under a fake sysfs root
/// and a GNSS receiver on a pseudo-terminal, reached through a stable name (`<root>/gnss`, as
/// udev's `/dev/serial/by-id` links are) that points at a new pty each boot. Both play the same
/// world: standing or moving east at ``speed``.
///
/// The accelerometer stamps its scans with the box's clock (the host clock, wrong by the boot's
/// offset, as the kernel's `realtime` timestamps are); the receiver's sentences carry the true
/// time, once it has a fix.
final class MonthBox: Sendable {
    /// Metres per second while moving: 15 m/s (54 km/h), so that a few seconds of riding pass
    /// `ride.min_distance`.
    static let speed = 15.0
    /// Epochs a receiver sends after boot before its first fix.
    static let epochsWithoutFix = 2

    let root: String
    /// Whether the world moves now (read by the accelerometer's writer).
    let moving = Atomic<Bool>(false)
    /// Metres east of the start.
    private let east = Mutex<Double>(0)
    /// The box's clock minus the real clock, ms (the boot's offset plus the simulated time).
    let boxShift = Atomic<Int64>(0)
    private let running = Atomic<Bool>(false)
    private let writerDone = Atomic<Bool>(true)

    init(root: String) throws {
        self.root = root
        let directory = root + "/sys/bus/iio/devices/iio:device0"
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory + "/buffer0", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        var files: [String: String] = [
            "name": "monthaccel", "in_accel_scale": "0.01", "sampling_frequency_available": "50 100 200",
            "sampling_frequency": "100", "current_timestamp_clock": "realtime", "buffer0/enable": "0",
            "buffer0/length": "0", "buffer0/in_accel_type": "le:s16/16>>0", "buffer0/in_timestamp_en": "0",
            "buffer0/in_timestamp_index": "3", "buffer0/in_timestamp_type": "le:s64/64>>0",
        ]
        for (index, axis) in ["x", "y", "z"].enumerated() {
            files["in_accel_\(axis)_raw"] = "0"
            files["buffer0/in_accel_\(axis)_en"] = "0"
            files["buffer0/in_accel_\(axis)_index"] = "\(index)"
        }
        for (name, text) in files {
            try (text + "\n").write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
        }
        guard mkfifo(root + "/dev/iio:device0", 0o600) == 0 else {
            throw CampaignError("mkfifo \(root)/dev/iio:device0: \(String(cString: strerror(errno)))")
        }
    }

    /// The `capture.sources` of the box.
    var sources: [String] { ["iio:iio:device0", "nmea:" + root + "/gnss"] }

    /// Powers the devices: a new pty behind `<root>/gnss`, and the accelerometer's writer, which
    /// waits for a reader and writes a scan every 10 ms until the reader is gone or ``powerOff()``.
    func powerOn(shift: Int64) throws -> PseudoTTY {
        boxShift.store(shift, ordering: .relaxed)
        let tty = try PseudoTTY()
        unlink(root + "/gnss")
        guard symlink(tty.path, root + "/gnss") == 0 else { throw CampaignError("symlink \(root)/gnss: \(String(cString: strerror(errno)))") }
        running.store(true, ordering: .relaxed)
        writerDone.store(false, ordering: .relaxed)
        Thread { [self] in
            defer { writerDone.store(true, ordering: .relaxed) }
            var fd: Int32 = -1
            while fd < 0 {
                guard running.load(ordering: .relaxed) else { return }
                fd = open(root + "/dev/iio:device0", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd < 0 { usleep(5_000) }
            }
            defer { close(fd) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            var index = 0
            while running.load(ordering: .relaxed) {
                // Moving shakes the vertical axis by ±2 m/s² (variance far above the threshold).
                let shake: Int16 = moving.load(ordering: .relaxed) ? (index % 2 == 0 ? 200 : -200) : 0
                var scan = [UInt8]()
                for value in [Int16(0), Int16(0), 981 + shake] { withUnsafeBytes(of: value.littleEndian) { scan += $0 } }
                scan += [0, 0]
                let ns = (Clock.wallMilliseconds() + boxShift.load(ordering: .relaxed)) * 1_000_000
                withUnsafeBytes(of: ns.littleEndian) { scan += $0 }
                guard scan.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == scan.count else { return }  // EPIPE
                index += 1
                usleep(10_000)
            }
        }.start()
        return tty
    }

    /// Stops the accelerometer's writer (the recorder is gone) and waits for it.
    func powerOff() {
        running.store(false, ordering: .relaxed)
        let deadline = Clock.now() + 5
        while !writerDone.load(ordering: .relaxed), Clock.now() < deadline { usleep(5_000) }
    }

    /// One NMEA epoch (RMC and GGA) at true time `time` (ms, a multiple of 10): moving east at
    /// ``speed``, or standing; without a fix while `fix` is false. Moves the world on by a
    /// second's travel when moving.
    func epoch(at time: Int64, fix: Bool) -> String {
        let moving = moving.load(ordering: .relaxed)
        let metres = east.withLock { east in
            if moving && fix { east += Self.speed }
            return east
        }
        var seconds = time_t(time / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let clock = String(format: "%02d%02d%02d.%02d", parts.tm_hour, parts.tm_min, parts.tm_sec, Int(time % 1000) / 10)
        let date = String(format: "%02d%02d%02d", parts.tm_mday, parts.tm_mon + 1, parts.tm_year % 100)
        guard fix else { return Self.sentence("GPRMC,\(clock),V,,,,,,,\(date),,,N") + Self.sentence("GPGGA,\(clock),,,,,0,00,,,M,,M,,") }
        // 52.40° N, 13.05° E: one minute of longitude is about 1133 m.
        let longitude = String(format: "013%07.4f", 3.0 + (metres.truncatingRemainder(dividingBy: 50_000)) / 1133)
        let knots = moving ? String(format: "%.1f", Self.speed * 3600 / 1852) : "0.0"
        return Self.sentence("GPRMC,\(clock),A,5224.0000,N,\(longitude),E,\(knots),90.0,\(date),,,A")
            + Self.sentence("GPGGA,\(clock),5224.0000,N,\(longitude),E,1,08,0.9,40.0,M,40.0,M,,")
    }

    static func sentence(_ body: String) -> String {
        "$" + body + String(format: "*%02X\r\n", body.utf8.reduce(UInt8(0), ^))
    }
}

/// A pseudo-terminal pair: the campaign writes to the master side, the recorder opens ``path``.
/// The campaign keeps the slave side open until ``close()``, so that writes never fail with EIO
/// before the recorder opens it; the master is non-blocking, so a full buffer drops an epoch
/// rather than stalling the campaign.
final class PseudoTTY {
    private(set) var master: Int32
    let path: String
    private var slave: Int32

    init() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 256)
        guard openpty(&master, &slave, &name, nil, nil) == 0 else { throw CampaignError("openpty: \(String(cString: strerror(errno)))") }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        self.master = master
        self.slave = slave
        path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `text`; whether all of it went.
    @discardableResult
    func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) } == bytes.count
    }

    /// Closes both sides, once (a descriptor closed twice may by then be another's).
    func close() {
        if slave >= 0 { Glibc.close(slave) }
        if master >= 0 { Glibc.close(master) }
        slave = -1
        master = -1
    }

    deinit { close() }
}

/// Processes of one boot run under `faketime` through `/usr/bin/env -i`: the wrapper forks the
/// program. A power cut SIGKILLs the program, by the pid found as the wrapper's child, then the
/// wrapper.
extension Child {
    /// The pids whose parent is this child (the program `faketime` forked).
    var children: [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { pid_t($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid
        }
    }

    /// The power goes: SIGKILL to the program under the wrapper and to the wrapper, each by pid;
    /// returns once every thread of the program is gone and the wrapper is reaped.
    func cut() {
        guard poll() == nil else { return }
        let programs = children
        for program in programs { kill(program, SIGKILL) }
        kill(pid, SIGKILL)
        wait()
        let deadline = Clock.now() + 10
        while !programs.allSatisfy(isGone), Clock.now() < deadline { usleep(5_000) }
    }
}
