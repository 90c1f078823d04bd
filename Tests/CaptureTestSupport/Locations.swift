import Foundation

/// Where the repository is, found from this source file's path
/// (`<root>/Tests/CaptureTestSupport/Locations.swift`).
public enum Repository {
    /// The repository root.
    public static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A file under `fixtures/`.
    public static func fixture(_ name: String) -> String { root + "/fixtures/" + name }
}

/// The package's built executables, which SwiftPM puts next to the test bundle
/// (`.build/debug/capture`, `.build/debug/capture-collector`, …).
public enum BuiltProducts {
    /// The directory of the running test bundle.
    public static let directory: String =
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path

    /// The path of the built executable `name`.
    public static func path(_ name: String) -> String { directory + "/" + name }
}
