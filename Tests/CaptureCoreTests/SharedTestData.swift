import Foundation
import Testing

/// Real receiver recordings from gpsd's regression suite, read in place from `shared/data/gpsd`
/// next to the repository (never copied into it).
enum SharedTestData {
    /// `<repo root>/../shared/data/gpsd`; this file is `<repo root>/Tests/CaptureCoreTests/…`.
    static let gpsdDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data/gpsd")

    /// Whether the recordings are there (tests that need them are disabled otherwise).
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: gpsdDirectory.appendingPathComponent("garmin15x.log").path)
    }

    /// The reason shown for disabled tests.
    static let absentReason: Comment = "shared/data/gpsd absent: real receiver logs are not available"

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: gpsdDirectory.appendingPathComponent(name)))
    }

    static func lines(_ name: String) throws -> [String] {
        String(decoding: try bytes(name), as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
    }
}
