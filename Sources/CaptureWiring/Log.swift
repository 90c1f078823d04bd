public import CaptureCore
import Foundation
public import Logging
import Synchronization

/// Messages on stderr by level: warnings and errors by default, more with `log_level`
/// (`--log-level`, `-v`, `$CAPTURE_LOG_LEVEL`). Plain lines, which journald keeps.
public enum Log {
    private static let current = Mutex(LogLevel.warning)

    /// The level in force; loading a ``DeviceConfiguration`` through the command line sets it.
    public static var level: LogLevel {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    public static func warning(_ message: String) { write(message, at: .warning) }
    public static func info(_ message: String) { write(message, at: .info) }
    public static func debug(_ message: String) { write(message, at: .debug) }

    private static func write(_ message: String, at level: LogLevel) {
        guard level <= Self.level else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// swift-log's messages (the uploader's, the OAuth session's, AsyncHTTPClient's) as ``Log``'s
/// plain lines, `capture: message (key=value …)`, at the level ``Log`` is set to.
public struct PlainLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]

    public init() {}

    public var logLevel: Logger.Level {
        get {
            switch Log.level {
            case .error: .error
            case .warning: .warning
            case .info: .info
            case .debug: .debug
            }
        }
        set {}  // follows Log.level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let details = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        FileHandle.standardError.write(Data("capture: \(event.message)\(details.isEmpty ? "" : " (\(details))")\n".utf8))
    }
}
