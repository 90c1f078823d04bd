/// What this binary was built from. `scripts/package` builds from an export of a commit and
/// writes that commit here in the export (never in the working tree), so a packaged `capture
/// --version` names it; a build of the working tree says it is a development build.
enum BuildInfo {
    /// The version, as `capture --version` and the upload metadata's `appVersion` give it.
    static let version = "0.1.0"
    /// The git commit the package was built from; `nil` in a development build.
    static let commit: String? = nil

    /// `0.1.0 (commit 1a2b3c4d…)` or `0.1.0 (development build)`.
    static var description: String {
        version + (commit.map { " (commit \($0))" } ?? " (development build)")
    }
}
