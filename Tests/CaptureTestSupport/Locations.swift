import Foundation

/// Where the repository is, found from this source file's path
/// (`<root>/Tests/CaptureTestSupport/Locations.swift`).
package enum Repository {
    /// The repository root.
    package static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A file under `fixtures/`.
    package static func fixture(_ name: String) -> String { root + "/fixtures/" + name }
}

/// The package's built executables, which SwiftPM puts next to the test bundle
/// (`.build/debug/capture`, `.build/debug/capture-collector`, …).
package enum BuiltProducts {
    /// The directory of the running test bundle.
    package static let directory: String =
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path

    /// The path of the built executable `name`.
    package static func path(_ name: String) -> String { directory + "/" + name }
}
