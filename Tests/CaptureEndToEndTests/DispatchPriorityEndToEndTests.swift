import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// Issue 42: every start of the packaged recorder logged "Failed to set thread priority for
/// worker thread … errno=13". Not capture's code: the first worker thread libdispatch starts in a
/// process (GRDB releasing a queue, a signal source, Swift concurrency) brings up its event
/// thread, which it gives the user-interactive class as nice -4, and lowering a nice value is
/// refused to an unprivileged user. The units allow the process nice values down to -4
/// (`LimitNICE=-4`, RLIMIT_NICE and nothing else), which is what libdispatch asks for.
@Suite struct DispatchPriorityEndToEndTests {
    static let message = "Failed to set thread priority for worker thread"

    @Test func theUnitsAllowTheNiceValueLibdispatchAsksFor() throws {
        for unit in ["capture-record.service", "capture-sync.service", "capture-serve.service"] {
            let text = try String(contentsOfFile: Repository.root + "/dist/systemd/" + unit, encoding: .utf8)
            #expect(text.contains("\nLimitNICE=-4\n"), "\(unit)")
        }
    }

    /// A foreground recorder as `nobody`, with libdispatch logging to stderr (under systemd it logs to
    /// the journal through syslog): the line without the permission, none with it. The unit's
    /// permission is RLIMIT_NICE; a machine whose root may not raise that limit (no
    /// CAP_SYS_RESOURCE, as in this project's sandbox) is given CAP_SYS_NICE instead, which
    /// allows the same and more.
    @Test(.enabled(if: getuid() == 0, "setpriv to another user needs root"))
    func theRuntimeLogsNothingOnceTheProcessMayHaveThePriority() throws {
        guard let setpriv = Program.require("setpriv", package: "util-linux") else { return }
        let nobody = try #require(getpwnam("nobody"))
        let (uid, gid) = (nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("capture-e2e-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for directory in [root, root + "/data", root + "/run"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        chmod(root, 0o755)
        for directory in [root + "/data", root + "/run"] {
            chown(directory, uid, gid)
            chmod(directory, 0o700)
        }
        /// `capture ARGS` as nobody, under `wrapper` (a command that runs the rest) and with
        /// `options` for setpriv.
        func run(_ arguments: [String], wrapper: [String] = [], options: [String] = []) throws -> Program.Result {
            let command = wrapper + [setpriv, "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + options + [
                "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=\(root)/data", "XDG_RUNTIME_DIR=\(root)/run",
                "CAPTURE_CONFIG=/dev/null", "LIBDISPATCH_LOG=stderr", CLI.executable,
            ] + arguments + ["--data-dir", root + "/data"]
            return try Program.run(command[0], Array(command.dropFirst()))
        }
        // A recorder in the foreground playing a trace to its stop mark, as the unit runs one: its
        // signal handlers start Dispatch's event thread at once.
        let record = ["start", "--foreground", "--flush-interval", "0.2", "--source", "trace:" + Repository.fixture("car.trace") + "@speed=1000"]
        let plain = try run(record)
        #expect(plain.status == 0 && plain.stderr.contains(Self.message), "the cause, as the unit without LimitNICE met it: \(plain.stderr)")
        // RLIMIT_NICE 24 is nice -4: what LimitNICE=-4 sets.
        let limit = (try? Program.run("/usr/bin/prlimit", ["--nice=24", "/bin/true"]))?.status == 0
        let allowed = try limit
            ? run(record, wrapper: ["/usr/bin/prlimit", "--nice=24"])
            : run(record, options: ["--inh-caps=+sys_nice", "--ambient-caps=+sys_nice"])
        #expect(allowed.status == 0 && !allowed.stderr.contains(Self.message), "\(allowed.stderr)")
    }
}
