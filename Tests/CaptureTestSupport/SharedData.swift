import Foundation
package import Testing

/// Real receiver recordings from gpsd's regression suite, read in place from
/// `<repo>/../shared/data/gpsd` (never copied into the repository).
///
/// The folder is absent on some checkouts (a fresh clone without `shared/` beside it): tests that
/// need it carry ``required``, so they are skipped with ``absentReason`` shown, never silently.
///
/// ```swift
/// @Test(SharedData.required) func realLogs() throws {
///     for line in try SharedData.lines("garmin15x.log") { … }
/// }
/// ```
package enum SharedData {
    /// `<repo root>/../shared/data/gpsd`.
    package static let gpsdDirectory: String = URL(fileURLWithPath: Repository.root)
        .deletingLastPathComponent().appendingPathComponent("shared/data/gpsd").path

    /// Whether the recordings are there.
    package static var isAvailable: Bool { FileManager.default.fileExists(atPath: gpsdDirectory + "/garmin15x.log") }

    /// The reason shown for tests skipped because the recordings are absent.
    package static let absentReason: Comment = "shared/data/gpsd absent: real receiver logs are not available"

    /// The trait of a test or suite that needs the recordings: it runs only when they are there
    /// and says why it was skipped otherwise.
    package static var required: ConditionTrait { .enabled(if: isAvailable, absentReason) }

    /// The path of recording `name`.
    package static func path(_ name: String) -> String { gpsdDirectory + "/" + name }

    /// The bytes of recording `name`.
    package static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// The lines of recording `name` (CR, LF and CRLF all end a line; empty lines are dropped).
    package static func lines(_ name: String) throws -> [String] {
        String(decoding: try bytes(name), as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
    }

    /// The NMEA logs (`*.log`) that have gpsd's decoding beside them (`*.log.chk`), sorted.
    package static var logs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: gpsdDirectory)) ?? [])
            .filter { $0.hasSuffix(".log") && FileManager.default.fileExists(atPath: gpsdDirectory + "/" + $0 + ".chk") }
            .sorted()
    }
}
