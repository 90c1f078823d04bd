import CaptureRecorder
import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// A small file system of the test's own, mounted in a private mount namespace that one process
/// holds (`unshare -m --propagation private … sleep`): the rest of the machine never sees it.
/// Every command runs inside that namespace (`nsenter -t PID -m`); the mount is unmounted and the
/// holder stopped by pid when the value goes away, after every process started in it.
///
/// - ``init(tmpfsSize:)``: a size-limited tmpfs, for a file system that fills up.
/// - ``init(ext4Megabytes:)``: a loop-mounted ext4 with `errors=remount-ro`, for a medium that
///   turns read-only under a running recorder (``turnReadOnly()``).
final class PrivateMedium {
    /// Whether this machine lets a test mount (root, and the tools).
    static var canMount: Bool {
        geteuid() == 0 && ["unshare", "nsenter", "mount", "umount"].allSatisfy { Program.which($0) != nil }
    }

    /// Where the file system is mounted (an empty directory outside the namespace).
    let mountPoint: String
    private let holder: Subprocess
    private let nsenter: String
    /// The ext4 image, beside the mount point.
    private let image: String?
    /// Processes started in the namespace that may outlive their command (recorders).
    private var started: [pid_t] = []

    private init(mount: String, image: String?) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("capture-medium-\(UUID().uuidString)").path
        mountPoint = base + "/mnt"
        self.image = image.map { _ in base + "/medium.img" }
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        nsenter = Program.which("nsenter") ?? "/usr/bin/nsenter"
        let script = (self.image.map { "truncate -s \(image!) \($0) && mkfs.ext4 -q -F \($0) && " } ?? "")
            + mount.replacingOccurrences(of: "IMAGE", with: self.image ?? "").replacingOccurrences(of: "MOUNT", with: mountPoint)
            + " && echo mounted && exec sleep 900"
        holder = try Subprocess(
            ["-m", "--propagation", "private", "sh", "-c", script], executable: Program.which("unshare") ?? "/usr/bin/unshare")
        let deadline = Date().addingTimeInterval(30)
        while !holder.stdout.contains("mounted"), Subprocess.isAlive(holder.pid), Date() < deadline { usleep(50_000) }
        guard holder.stdout.contains("mounted") else {
            throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: "cannot mount: \(holder.stderr)"])
        }
    }

    /// A tmpfs of `size` (`mount -o size=…`: `6m`).
    convenience init(tmpfsSize size: String) throws {
        try self.init(mount: "mount -t tmpfs -o size=\(size),mode=0700 tmpfs MOUNT", image: nil)
    }

    /// An ext4 of `megabytes` in a file, loop-mounted with `errors=remount-ro`.
    convenience init(ext4Megabytes megabytes: Int) throws {
        try self.init(mount: "mount -o loop,errors=remount-ro IMAGE MOUNT && chmod 0700 MOUNT", image: "\(megabytes)M")
    }

    deinit {
        for pid in started where Subprocess.isAlive(pid) { kill(pid, SIGKILL) }
        for pid in started { for _ in 0..<100 where Subprocess.isAlive(pid) { usleep(20_000) } }
        _ = try? run("/bin/umount", [mountPoint])
        holder.stop()
        let base = (mountPoint as NSString).deletingLastPathComponent
        try? FileManager.default.removeItem(atPath: base)
    }

    /// Runs `executable` inside the namespace and waits for it.
    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> Program.Result {
        try Program.run(nsenter, ["-t", "\(holder.pid)", "-m", "--", executable] + arguments)
    }

    /// Runs `capture ARGS --data-dir DATA` inside the namespace, with `environment`
    /// (`NAME=VALUE`s) added to the test's; a recorder it starts is stopped with the medium.
    @discardableResult
    func capture(_ arguments: [String], data: String, environment: [String] = []) throws -> Program.Result {
        let result = try run("/usr/bin/env", environment + [CLI.executable] + arguments + ["--data-dir", data])
        if let pid = recorderPID(data), !started.contains(pid) { started.append(pid) }
        return result
    }

    /// Starts `capture ARGS --data-dir DATA` inside the namespace without waiting for it.
    func spawnCapture(_ arguments: [String], data: String) throws -> Subprocess {
        let child = try Subprocess(
            ["-t", "\(holder.pid)", "-m", "--", CLI.executable] + arguments + ["--data-dir", data], executable: nsenter)
        started.append(child.pid)
        return child
    }

    /// The running recorder's pid, from its pid file in its runtime directory (read through the
    /// holder's view of files; `data` has no links, so its key is the same inside).
    func recorderPID(_ data: String) -> pid_t? {
        (try? String(contentsOfFile: inside(RuntimeDirectory(dataDirectory: data).pidFile), encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// `path` as this process reaches it: through the holder's root.
    func inside(_ path: String) -> String { "/proc/\(holder.pid)/root" + path }

    /// Fills the file system with a file of another program's (`dd` until it is full).
    func fill(name: String = "filler") throws {
        let result = try run("/bin/dd", ["if=/dev/zero", "of=\(mountPoint)/\(name)", "bs=64k"])
        #expect(result.stderr.contains("No space left"), "dd: \(result.stderr)")
    }

    /// Removes what ``fill(name:)`` wrote.
    func makeRoom(name: String = "filler") throws {
        #expect(try run("/bin/rm", ["-f", "\(mountPoint)/\(name)"]).status == 0)
    }

    /// Turns the ext4 read-only under whatever has files open on it, as the kernel does when an
    /// SD card's writes fail (`errors=remount-ro`): ext4's `trigger_fs_error`.
    func turnReadOnly() throws {
        let device = try run("/bin/findmnt", ["-n", "-o", "SOURCE", mountPoint]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let name = (device as NSString).lastPathComponent
        #expect(!name.isEmpty, "no device under \(mountPoint)")
        try "1\n".write(toFile: "/sys/fs/ext4/\(name)/trigger_fs_error", atomically: false, encoding: .utf8)
    }

    /// The box boots again: unmount, `e2fsck -fy`, mount read-write.
    func checkAndRemount() throws {
        guard let image else { return }
        #expect(try run("/bin/umount", [mountPoint]).status == 0)
        let fsck = try run("/sbin/e2fsck", ["-fy", image])
        #expect(fsck.status <= 1, "e2fsck: \(fsck.status) \(fsck.stdout)")
        #expect(try run("/bin/mount", ["-o", "loop,errors=remount-ro", image, mountPoint]).status == 0)
    }

    /// `PRAGMA integrity_check` of the store in `data`, read only.
    func integrity(_ data: String) throws -> String {
        try run(Program.which("sqlite3") ?? "/usr/bin/sqlite3", ["-readonly", data + "/capture.sqlite", "PRAGMA integrity_check"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
