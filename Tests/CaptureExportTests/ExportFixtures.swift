import CaptureRecorder
import CaptureStorage
import CaptureTestSupport
import Foundation

/// Stores made from the repository's fixtures in temporary data directories.
enum ExportFixtures {
    /// `fixtures/<name>`.
    static func fixture(_ name: String) -> String { Repository.fixture(name) }

    /// The bytes of `fixtures/golden/<name>`.
    static func golden(_ name: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: fixture("golden/" + name)) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: fixture("golden/" + name)])
        }
        return [UInt8](data)
    }

    /// A new, empty temporary directory, removed with the returned object.
    static func temporaryDirectory(_ name: String = "export") throws -> Scratch { try Scratch.make(name) }

    /// A data directory with `trace` (a file in fixtures/) replayed as measurement 1.
    static func replayed(_ trace: String) throws -> (store: Store, directory: Scratch) {
        let directory = try temporaryDirectory("data")
        let store = try Store(directory: directory.path)
        _ = try Replay(path: fixture(trace)).run(into: store)
        return (store, directory)
    }

    /// The bytes of the file at `path`, or nil.
    static func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
}
