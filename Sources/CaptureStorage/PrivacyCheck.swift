import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a data directory and its database let anyone but their owner in: what `capture
/// status` warns about. capture creates them private (``PrivateFiles``); one made earlier, by an
/// older version or by hand, keeps its mode and is reported here rather than changed.
///
/// ```swift
/// for exposure in PrivacyCheck(dataDirectory: directory).exposures {
///     print(exposure.path, exposure.mode, exposure.chmod)   // /data 755 chmod 700 /data
/// }
/// ```
public struct PrivacyCheck: Sendable, Equatable {
    /// One path that group or others may read (or enter, for the directory).
    public struct Exposure: Sendable, Equatable, Codable {
        /// The path.
        public var path: String
        /// Its permission bits in octal, such as `755`.
        public var mode: String
        /// The command that makes it private: `chmod 700 DIR` or `chmod 600 FILE`.
        public var chmod: String
    }

    /// The paths group or others can get at, the directory first; empty when the data is private.
    public var exposures: [Exposure]

    /// Whether nothing is exposed.
    public var isPrivate: Bool { exposures.isEmpty }

    /// Looks at the data directory and at `capture.sqlite`, `-journal`, `-wal` and `-shm` in it
    /// (the last two of a store made in WAL mode by an earlier version): any
    /// permission bit for group or others counts. Paths that do not exist are not exposures, and
    /// neither is anything of a directory that holds things of others and no store
    /// (``DataDirectory/isCaptures(_:)``): capture did not make it, and it is not for capture to
    /// advise changing its mode.
    public init(dataDirectory: String) {
        var exposures: [Exposure] = []
        guard DataDirectory.isCaptures(dataDirectory) else {
            self.exposures = []
            return
        }
        let paths: [(String, UInt32)] =
            [(dataDirectory, PrivateFiles.directoryMode)]
            + ["capture.sqlite", "capture.sqlite-journal", "capture.sqlite-wal", "capture.sqlite-shm"].map {
                ((dataDirectory as NSString).appendingPathComponent($0), PrivateFiles.fileMode)
            }
        for (path, expected) in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let mode = UInt32(info.st_mode) & 0o7777
            if mode & 0o077 != 0 {
                exposures.append(
                    Exposure(
                        path: path, mode: String(mode, radix: 8), chmod: "chmod \(String(expected, radix: 8)) \(path)"))
            }
        }
        self.exposures = exposures
    }
}

extension PrivacyCheck {
    /// `/d (mode 755), /d/capture.sqlite (mode 644)`.
    public static func paths(_ exposed: [Exposure]) -> String {
        exposed.map { "\($0.path) (mode \($0.mode))" }.joined(separator: ", ")
    }

    /// `run: chmod 700 /d; chmod 600 /d/capture.sqlite`.
    public static func remedy(_ exposed: [Exposure]) -> String {
        "run: " + exposed.map(\.chmod).joined(separator: "; ")
    }
}
