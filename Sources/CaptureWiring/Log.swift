package import CaptureCore
package import Logging
import Synchronization

/// The process's logging is swift-log's: every stage logs through a `Logger` (the recorder's,
/// the uploader's, the OAuth session's, AsyncHTTPClient's), and the front end bootstraps the
/// handler that writes the lines a person reads. This holds the level the configuration sets
/// (`log_level`, `--log-level`, `-v`, `$CAPTURE_LOG_LEVEL`), which that handler follows, and the
/// logger of the composition root and the command line.
package enum Log {
    private static let current = Mutex(LogLevel.warning)

    /// The level in force; loading a ``DeviceConfiguration`` through the command line sets it.
    package static var level: LogLevel {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// The logger of the composition root and the command line (made on first use, after the
    /// front end has bootstrapped its handler).
    package static let logger = Logger(label: "capture")
}

extension Logger.Level {
    /// swift-log's level for the configuration's.
    package init(_ level: LogLevel) {
        switch level {
        case .error: self = .error
        case .warning: self = .warning
        case .info: self = .info
        case .debug: self = .debug
        }
    }
}
