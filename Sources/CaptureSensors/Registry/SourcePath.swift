import Foundation

/// Paths in source specs, made absolute against the working directory.
package enum SourcePath {
    /// `path` made absolute against the current directory and standardised (`..` resolved).
    package static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL.path
    }
}
