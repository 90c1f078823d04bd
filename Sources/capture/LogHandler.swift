import CaptureWiring
import Foundation
import Logging

/// swift-log's messages, every stage's, as the plain lines journald keeps: `capture: warning:
/// message (key=value …)` for a warning or worse, `capture: message (…)` below, at the level
/// the configuration sets (``Log/level``).
struct PlainLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { Logger.Level(Log.level) }
        set {}  // follows Log.level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        FileHandle.standardError.write(Data((Self.line(event.message.description, level: event.level, metadata: metadata.merging(event.metadata ?? [:]) { $1 }) + "\n").utf8))
    }

    static func line(_ message: String, level: Logger.Level, metadata: Logger.Metadata = [:]) -> String {
        let details = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let severity = level >= .error ? "error: " : level >= .warning ? "warning: " : ""
        return "capture: \(severity)\(message)\(details.isEmpty ? "" : " (\(details))")"
    }
}
