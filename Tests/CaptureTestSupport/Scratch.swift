import Foundation

/// A temporary directory that is removed when the last reference goes (at the end of a test).
package final class Scratch: Sendable {
    package let path: String

    package init(_ path: String) { self.path = path }

    /// A new, empty directory `capture-NAME-UUID` in the temporary directory.
    package static func make(_ name: String) throws -> Scratch {
        let scratch = Scratch(FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(name)-\(UUID().uuidString)").path)
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        return scratch
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
