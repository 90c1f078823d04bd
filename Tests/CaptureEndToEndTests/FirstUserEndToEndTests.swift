import CaptureTestSupport
import Foundation
import Testing

/// What tripped a first user (issue 46, item 11): small things a person reads.
@Suite struct FirstUserEndToEndTests {
    @Test func anEmptyListIsPrintedAsEmptyJSON() throws {
        let cli = CLI()
        // Foundation's pretty printer spread it over three lines: `[\n\n]`.
        #expect(try cli.run(["list", "--json"]).stdout == "[]\n")
        let token = cli.dataDirectory + "-token"
        defer { unlink(token) }
        #expect(FileManager.default.createFile(atPath: token, contents: Data("t\n".utf8), attributes: [.posixPermissions: 0o600]))
        let upload = try cli.run(["upload", "--json", "--url", "http://127.0.0.1:1/", "--token-file", token])
        #expect(upload.stdout == "[]\n", "\(upload.stderr)")
    }

    @Test func importingATextFileSaysItIsOneWithoutDecoderWords() throws {
        let cli = CLI()
        let path = cli.dataDirectory + "-notes.txt"
        defer { unlink(path) }
        try "my ride notes from Tuesday\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try cli.run(["import", path])
        #expect(result.status == 65)
        #expect(
            result.stderr == "capture: \(path) is a text file, not a Cyface v3 transfer file (those are binary, .ccyf); nothing imported\n",
            "\(result.stderr)")
    }
}

extension FirstUserEndToEndTests {
    @Test func aTrackShowsTheModalityChangesMadeOnIt() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", cli.fixture("bicycle.trace")]).stdout == "1\n")
        // Track 2 (5:00 to 10:00) changes to walking at 7:30; it was labelled BICYCLE alone.
        let shown = try cli.run(["show", "1"]).stdout.split(separator: "\n")
        let second = try #require(shown.first { $0.hasPrefix("  track 2 ") }, "\(shown)")
        #expect(second.contains(", BICYCLE → WALKING, "), "\(second)")
        #expect(shown.first { $0.hasPrefix("  track 1 ") }?.contains(", BICYCLE, ") == true)
    }
}
