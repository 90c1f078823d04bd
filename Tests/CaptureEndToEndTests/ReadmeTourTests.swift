import CaptureTestSupport
import Foundation
import Glibc
import Testing

/// The README's "## A tour", run as written: every shell line of its code block, in order,
/// against a temporary data directory, with `capture` the built binary, `fixtures/…` from the
/// repository root, other relative paths in a temporary directory and `--url`/`--token-file`
/// pointed at a `capture-collector` on 127.0.0.1. Each line must exit 0, or the code the README
/// documents for it where a machine cannot do more (`capture start` without `--source` on a
/// machine with no sensors: 66).
@Suite(.serialized) struct ReadmeTourTests {
    /// The shell lines of the tour's code block, comments removed.
    static func tourLines() throws -> [String] {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        guard let tour = readme.range(of: "\n## A tour\n") else { return [] }
        let rest = readme[tour.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "\n```") else { return [] }
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map { line in
            // A comment starts at a `#` after a blank.
            let code = line.range(of: " #").map { line[..<$0.lowerBound] } ?? line[...]
            return code.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// Issue 46: the demo's last lines sent the reader to its own data directory, where the
    /// tour's ids are not the demo's and its `capture delete 1` would delete the demo's ride.
    @Test func theDemoSendsTheReaderToAFreshDataDirectoryForTheTour() throws {
        let demo = try String(contentsOfFile: Repository.root + "/scripts/demo", encoding: .utf8)
        let closing = try #require(demo.range(of: "To run capture from here on").map { demo[$0.lowerBound...] })
        let export = try #require(closing.split(separator: "\n").first { $0.contains("export PATH=") })
        #expect(export.contains("CAPTURE_HOME=\"\\$(mktemp -d)\""), "\(export)")
        #expect(!export.contains("CAPTURE_HOME=\"$CAPTURE_HOME\""), "\(export)")
    }

    @Test func theTourRunsAsWritten() throws {
        let lines = try Self.tourLines()
        try #require(lines.count >= 10, "no tour found in the README: \(lines)")
        let collector = try CollectorProcess()
        let cli = CLI()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("capture-tour-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for line in lines {
            var words = line.split(separator: " ").map(String.init)
            try #require(words.first == "capture", "a tour line that is not a capture command: \(line)")
            words.removeFirst()
            var arguments: [String] = []
            var index = 0
            while index < words.count {
                let word = words[index]
                if word == "--url", index + 1 < words.count {
                    arguments += [word, collector.url]
                    index += 2
                    continue
                }
                if word == "--token-file", index + 1 < words.count {
                    arguments += [word, collector.tokenFile]
                    index += 2
                    continue
                }
                if let colon = word.firstIndex(of: ":"), word[word.index(after: colon)...].hasPrefix("fixtures/") {
                    arguments.append(String(word[...colon]) + Repository.root + "/" + word[word.index(after: colon)...])
                } else if word.hasPrefix("fixtures/") {
                    arguments.append(Repository.root + "/" + word)
                } else if [".ccyf", ".gpx", ".geojson", ".svg"].contains(where: { word.hasSuffix($0) }) {
                    arguments.append(scratch + "/" + word)
                } else {
                    arguments.append(word)
                }
                index += 1
            }
            // `capture delete` asks first: answer yes, as a person at the terminal would.
            let result = try cli.run(arguments, input: arguments.first == "delete" ? "y\n" : nil)
            if arguments == ["start"], result.status == 66 {
                // No sensors on this machine: the documented refusal.
                #expect(result.stderr.contains("no sensors found"), "\(line): \(result.stderr)")
                continue
            }
            #expect(result.status == 0, "`\(line)` exited \(result.status): \(result.stderr)")
            if arguments == ["start"], result.status == 0 {
                #expect(try cli.run(["stop"]).status == 0)
            }
        }
        // The replayed car ride at least; the short live one (and its imported copy) may have too
        // few fixes for the collector, which then keeps them as skipped (412).
        #expect(try collector.stored().count >= 1, "the tour's upload delivered nothing")
    }
}
