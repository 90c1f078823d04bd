import CaptureStorage
import Foundation
import Glibc

/// Where the recorder of a data directory keeps what lives only while it runs: its control
/// socket (`control.sock`), its pid file (`recorder.pid`) and its lock (`recorder.lock`).
///
/// They are kept out of the data directory, so that the data directory holds data only and
/// works on any file system with files and `fsync` (FAT, exFAT and FUSE file systems have no
/// sockets), and in a directory that is empty after every boot, so that nothing of a recorder
/// survives a power cut. The base is chosen by ``base(environment:uid:runCaptureIsOurs:)``:
///
/// 1. `$XDG_RUNTIME_DIR/capture` when `XDG_RUNTIME_DIR` is set to an absolute path (a login
///    session; also what `RuntimeDirectory=capture` gives a user unit);
/// 2. `/run/capture` when it exists and belongs to this user (systemd's `RuntimeDirectory=capture`
///    in dist/systemd/capture-record.service, for its `User=`);
/// 3. `/tmp/capture-UID` otherwise, made 0700; refused unless it is a directory of this user's
///    (not a link), as is a base of either other kind.
///
/// Inside the base, each data directory has its own directory (0700, refused when another user's
/// or open to others), named by the first 16 hex digits of the SHA-256 of the data directory's
/// real path (``key(realPath:)``), so that two data directories on one machine never share a
/// socket or a lock.
///
/// ```swift
/// let runtime = RuntimeDirectory(dataDirectory: "/var/lib/capture")
/// runtime.controlSocket   // "/run/capture/3f0c…/control.sock" under the systemd unit
/// ```
package struct RuntimeDirectory: Sendable, Equatable {
    /// Which rule chose the base.
    package enum Origin: String, Codable, Sendable, Equatable {
        /// `$XDG_RUNTIME_DIR/capture`.
        case xdgRuntimeDir
        /// `/run/capture`, as systemd's `RuntimeDirectory=capture` makes it.
        case systemd
        /// `/tmp/capture-UID`: neither of the others.
        case fallback

        /// How `doctor` names it.
        package var description: String {
            switch self {
            case .xdgRuntimeDir: "$XDG_RUNTIME_DIR"
            case .systemd: "systemd's RuntimeDirectory="
            case .fallback: "no XDG_RUNTIME_DIR and no /run/capture of this user's"
            }
        }
    }

    /// The directory shared by this user's recorders (`/run/capture`, …).
    package let base: String
    /// Which rule chose ``base``.
    package let origin: Origin
    /// The data directory's own name under ``base`` (``key(realPath:)``).
    package let key: String

    /// The data directory's runtime directory: ``base``/``key``.
    package var path: String { base + "/" + key }
    /// The socket the recorder listens on.
    package var controlSocket: String { path + "/control.sock" }
    /// The recorder's process id, one decimal line (for scripts and tests; the lock is the truth).
    package var pidFile: String { path + "/recorder.pid" }
    /// The file whose `flock` a running recorder holds (``RecorderLock``).
    package var lockFile: String { path + "/recorder.lock" }

    /// The names a recorder of an older capture left in the data directory itself. Nothing reads
    /// them any more; `capture doctor` mentions them.
    package static let formerNames = ["control.sock", "recorder.pid", "recorder.lock"]

    /// The fixed directory systemd's `RuntimeDirectory=capture` makes for a system unit.
    package static let systemdBase = "/run/capture"

    /// A runtime directory `base`/`key`, as chosen by `origin` (tests, and ``init(dataDirectory:environment:)``).
    package init(base: String, origin: Origin, key: String) {
        self.base = base
        self.origin = origin
        self.key = key
    }

    /// The runtime directory of `dataDirectory` for this process (its user, and its environment
    /// unless `environment` is given). Nothing is created; ``create()`` does that.
    package init(dataDirectory: String, environment: [String: String]? = nil) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let uid = getuid()
        var info = stat()
        let runCaptureIsOurs =
            lstat(Self.systemdBase, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == uid
        let (base, origin) = Self.base(environment: environment, uid: uid, runCaptureIsOurs: runCaptureIsOurs)
        let real = realpath(dataDirectory, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
        self.init(base: base, origin: origin, key: Self.key(realPath: real ?? (dataDirectory as NSString).standardizingPath))
    }

    // MARK: - The choice (pure)

    /// The base directory for a process with `environment` running as `uid`, given whether
    /// `/run/capture` exists as a directory of that user's. See ``RuntimeDirectory`` for the rules.
    package static func base(environment: [String: String], uid: UInt32, runCaptureIsOurs: Bool) -> (path: String, origin: Origin) {
        if let xdg = environment["XDG_RUNTIME_DIR"], xdg.hasPrefix("/") {
            let trimmed = xdg.count > 1 && xdg.hasSuffix("/") ? String(xdg.dropLast()) : xdg
            return (trimmed == "/" ? "/capture" : trimmed + "/capture", .xdgRuntimeDir)
        }
        if runCaptureIsOurs { return (systemdBase, .systemd) }
        return ("/tmp/capture-\(uid)", .fallback)
    }

    /// The name of a data directory's runtime directory: the first 16 hex digits (64 bits) of the
    /// SHA-256 of its real path (symbolic links resolved, so that two spellings of one directory
    /// share one recorder). A data directory that is moved or renamed gets another name.
    package static func key(realPath: String) -> String {
        String(ContentDigest.sha256Hex(Array(realPath.utf8)).prefix(16))
    }

    // MARK: - Making it

    /// Creates ``base`` and ``path`` if missing, each 0700, and checks that both are directories
    /// of this user's and that no one else may enter ``path``: a `/tmp/capture-UID` made by
    /// someone else, or a data directory's runtime directory opened up, is never used.
    package func create() throws(RuntimeDirectoryError) {
        for directory in [base, path] {
            if mkdir(directory, mode_t(PrivateFiles.directoryMode)) == 0 {
                _ = chmod(directory, mode_t(PrivateFiles.directoryMode))
            } else if errno != EEXIST {
                // A missing XDG_RUNTIME_DIR is not created here: it is the session's.
                throw RuntimeDirectoryError(path: directory, problem: .cannotCreate(String(cString: strerror(errno))))
            }
            try Self.check(directory, uid: getuid(), private: directory == path)
        }
    }

    /// What ``create()`` would refuse in what exists of ``base`` and ``path``, creating nothing
    /// (`capture doctor`); `nil` when both are usable or still to be made.
    package func problem() -> RuntimeDirectoryError? {
        for directory in [base, path] {
            var info = stat()
            guard lstat(directory, &info) == 0 else { continue }
            do {
                try Self.check(directory, uid: getuid(), private: directory == path)
            } catch {
                return error
            }
        }
        return nil
    }

    /// Refuses `directory` unless it is a directory (not a link) owned by `uid` and, if
    /// `private`, with no permissions for group or others. The base need not be private (the
    /// data directory's own directory inside it is, and only its owner may replace that).
    static func check(_ directory: String, uid: UInt32, private: Bool) throws(RuntimeDirectoryError) {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw RuntimeDirectoryError(path: directory, problem: .cannotCreate(String(cString: strerror(errno))))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw RuntimeDirectoryError(path: directory, problem: .notADirectory) }
        guard info.st_uid == uid else { throw RuntimeDirectoryError(path: directory, problem: .notOurs(owner: info.st_uid)) }
        guard !`private` || info.st_mode & 0o077 == 0 else {
            throw RuntimeDirectoryError(path: directory, problem: .open(mode: String(info.st_mode & 0o777, radix: 8)))
        }
    }
}

/// Why a recorder's runtime directory (``RuntimeDirectory``) cannot be used.
package struct RuntimeDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with it.
    package enum Problem: Sendable, Equatable {
        /// `mkdir` failed, with the system's words.
        case cannotCreate(String)
        /// Something that is not a directory (a file, a symbolic link) has its name.
        case notADirectory
        /// It belongs to another user.
        case notOurs(owner: UInt32)
        /// Group or others may use it (its mode, in octal).
        case open(mode: String)
        /// The control socket could not be made there (the reason names the call).
        case cannotBind(String)
    }

    /// The directory.
    package var path: String
    /// What is wrong with it.
    package var problem: Problem

    package var description: String {
        switch problem {
        case .cannotCreate(let reason): "cannot create the runtime directory \(path): \(reason)"
        case .notADirectory: "the runtime directory \(path) is not a directory"
        case .notOurs(let owner): "the runtime directory \(path) belongs to uid \(owner), not to uid \(getuid())"
        case .open(let mode): "the runtime directory \(path) has mode \(mode): others may enter it"
        case .cannotBind(let reason): reason.contains(path) ? reason : "cannot listen on \(path): \(reason)"
        }
    }
}
