import CaptureTestSupport
import Foundation
import Testing

/// The man pages the .deb installs, written by `scripts/man-pages` from the built binaries as
/// `scripts/package` writes them: mandoc warns of nothing in any page, no page is for an
/// internal command, characters such as `→` survive, and references name installed files.
@Suite struct ManPageTests {
    @Test func everyPageLintsCleanAndSaysWhatHelpSays() throws {
        guard let mandoc = Program.require("mandoc", package: "mandoc") else { return }
        let generator = Repository.root + "/.build/generate-manual/debug/generate-manual"
        guard FileManager.default.isExecutableFile(atPath: generator) else {
            let build = "swift build --package-path .build/checkouts/swift-argument-parser --scratch-path .build/generate-manual"
            Issue.record("no \(generator): build it with `\(build) --product generate-manual` (scripts/test does)")
            return
        }
        let scratch = try Scratch.make("man-pages")
        let made = try Program.run(
            Repository.root + "/scripts/man-pages", [scratch.path, BuiltProducts.directory, generator, "2026-11-27"])
        #expect(made.status == 0, "\(made.stderr)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".1") }.sorted()
        #expect(pages.contains("capture.1") && pages.contains("capture.upload.1") && pages.contains("capture-collector.1"))
        #expect(pages.count > 25, "\(pages)")
        #expect(!pages.contains { $0.contains("._") }, "no page for an internal command: \(pages)")

        let lint = try Program.run(mandoc, ["-T", "lint", "-W", "warning"] + pages.map { scratch.path + "/" + $0 })
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")

        // `capture --help` says BICYCLE → WALKING; so does the page, as a terminal shows it.
        let overview = try Program.run(mandoc, ["-T", "utf8", scratch.path + "/capture.1"])
        let plain = overview.stdout.replacingOccurrences(of: "[^\\n]\u{8}", with: "", options: .regularExpression)
        #expect(plain.contains("BICYCLE → WALKING"), "\(plain.prefix(800))")
        // Every reference to the docs points where the package installs them.
        for page in pages {
            let text = try String(contentsOfFile: scratch.path + "/" + page, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("docs/") || line.contains("README") {
                #expect(
                    line.replacingOccurrences(of: "/usr/share/doc/capture/", with: "").range(of: #"docs/|README(?!\.md\.gz)"#, options: .regularExpression) == nil,
                    "\(page): \(line)")
            }
        }
        let config = try String(contentsOfFile: scratch.path + "/capture.config.1", encoding: .utf8)
        #expect(config.contains("/usr/share/doc/capture/configuration.md.gz"))
        #expect(config.contains("/usr/share/doc/capture/examples/config.yaml"))
    }
}
