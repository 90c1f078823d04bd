import CaptureTestSupport
import Foundation
import Glibc
import Testing
@testable import CaptureRecorder

/// Where the recorder's socket, pid file and lock go: the environment in, a path out.
@Suite struct RuntimeDirectoryTests {
    @Test func xdgRuntimeDirComesFirst() {
        let chosen = RuntimeDirectory.base(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000, runCaptureIsOurs: true)
        #expect(chosen.path == "/run/user/1000/capture" && chosen.origin == .xdgRuntimeDir)
        let slash = RuntimeDirectory.base(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], uid: 1000, runCaptureIsOurs: false)
        #expect(slash.path == "/run/user/1000/capture")
    }

    @Test func systemdsRunCaptureWhenItIsOurs() {
        let chosen = RuntimeDirectory.base(environment: [:], uid: 998, runCaptureIsOurs: true)
        #expect(chosen.path == "/run/capture" && chosen.origin == .systemd)
    }

    @Test func aRelativeOrEmptyXDGRuntimeDirIsIgnored() {
        for value in ["", "run/user/1000", "."] {
            let chosen = RuntimeDirectory.base(environment: ["XDG_RUNTIME_DIR": value], uid: 1000, runCaptureIsOurs: false)
            #expect(chosen.path == "/tmp/capture-1000" && chosen.origin == .fallback, "\(value)")
        }
    }

    @Test func theFallbackIsPerUser() {
        #expect(RuntimeDirectory.base(environment: ["HOME": "/root"], uid: 0, runCaptureIsOurs: false).path == "/tmp/capture-0")
        #expect(RuntimeDirectory.base(environment: [:], uid: 1001, runCaptureIsOurs: false).path == "/tmp/capture-1001")
    }

    @Test func theKeyIs16HexDigitsOfTheRealPathsSHA256() {
        // printf %s /var/lib/capture | sha256sum | cut -c1-16
        #expect(RuntimeDirectory.key(realPath: "/var/lib/capture") == "5d02b70fe878c1e6")
        #expect(RuntimeDirectory.key(realPath: "/var/lib/capture2") != RuntimeDirectory.key(realPath: "/var/lib/capture"))
        let runtime = RuntimeDirectory(base: "/run/capture", origin: .systemd, key: "5d02b70fe878c1e6")
        #expect(runtime.controlSocket == "/run/capture/5d02b70fe878c1e6/control.sock")
        #expect(runtime.pidFile == "/run/capture/5d02b70fe878c1e6/recorder.pid")
        #expect(runtime.lockFile == "/run/capture/5d02b70fe878c1e6/recorder.lock")
    }

    @Test func twoSpellingsOfOneDataDirectoryShareItsRuntimeDirectoryAndTwoDirectoriesDoNot() throws {
        let scratch = try Scratch.make("runtime")
        defer { withExtendedLifetime(scratch) {} }
        let data = scratch.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/link", withDestinationPath: data)
        let environment = ["XDG_RUNTIME_DIR": scratch.path + "/run"]
        let direct = RuntimeDirectory(dataDirectory: data, environment: environment)
        #expect(direct.base == scratch.path + "/run/capture")
        #expect(RuntimeDirectory(dataDirectory: scratch.path + "/link", environment: environment) == direct)
        #expect(RuntimeDirectory(dataDirectory: data + "/../data/", environment: environment) == direct)
        #expect(RuntimeDirectory(dataDirectory: scratch.path + "/other", environment: environment).key != direct.key)
    }

    @Test func createMakesPrivateDirectoriesAndRefusesOthers() throws {
        let scratch = try Scratch.make("runtime")
        defer { withExtendedLifetime(scratch) {} }
        let runtime = RuntimeDirectory(base: scratch.path + "/capture", origin: .fallback, key: "k")
        try runtime.create()
        for path in [runtime.base, runtime.path] {
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(path)")
        }
        try runtime.create()  // again: it is there, and ours

        // A link in the place of the data directory's own directory.
        let linked = RuntimeDirectory(base: scratch.path + "/capture", origin: .fallback, key: "link")
        try FileManager.default.createSymbolicLink(atPath: linked.path, withDestinationPath: scratch.path)
        #expect(throws: RuntimeDirectoryError(path: linked.path, problem: .notADirectory)) { try linked.create() }

        // One opened up to others.
        let opened = RuntimeDirectory(base: scratch.path + "/capture", origin: .fallback, key: "open")
        #expect(mkdir(opened.path, 0o755) == 0 && chmod(opened.path, 0o755) == 0)
        #expect(throws: RuntimeDirectoryError(path: opened.path, problem: .open(mode: "755"))) { try opened.create() }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give a directory to another user"))
    func aFallbackMadeByAnotherUserIsRefused() throws {
        let scratch = try Scratch.make("runtime")
        defer { withExtendedLifetime(scratch) {} }
        let base = scratch.path + "/capture-\(getuid())"
        #expect(mkdir(base, 0o700) == 0 && chown(base, 65534, 65534) == 0)
        let runtime = RuntimeDirectory(base: base, origin: .fallback, key: "k")
        #expect(throws: RuntimeDirectoryError(path: base, problem: .notOurs(owner: 65534))) { try runtime.create() }
        #expect(!FileManager.default.fileExists(atPath: runtime.path))
    }
}
