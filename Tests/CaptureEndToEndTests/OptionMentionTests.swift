import CaptureTestSupport
import Foundation
import Testing

/// Every error message that names an option names one the command has (issue 32: `capture
/// sync` said "pass --url", and sync has no `--url`). Each row is a refused invocation; every
/// `--option` its stderr names must be listed by that command's `--help`.
@Suite struct OptionMentionTests {
    static let car = Repository.root + "/fixtures/car.trace"

    /// Invocations that are refused with a message; most name an option.
    static let refusals: [[String]] = [
        ["sync", "--now"],
        ["upload"],
        ["upload", "--url", "http://127.0.0.1:1/"],
        ["upload", "--chunk-size", "0"],
        ["upload", "--retry-budget", "-1"],
        ["export", "1", "--format", "cyface", "--clean"],
        ["export", "1", "--format", "gpx", "--table", "locations"],
        ["export", "1", "--format", "csv", "-o", "x.csv"],
        ["start", "--flush-interval", "0", "--source", "trace:" + car],
        ["start", "--max-store-size", "lots", "--source", "trace:" + car],
        ["start", "--source", "frob:x"],
        ["replay", car, "--modality", "rocket"],
    ]

    @Test func everyOptionAnErrorNamesIsInThatCommandsHelp() throws {
        let cli = CLI()
        #expect(try cli.run(["replay", Self.car]).status == 0)
        var named = 0
        for arguments in Self.refusals {
            let result = try cli.run(arguments)
            #expect(result.status != 0, "\(arguments) was not refused: \(result.stdout)")
            let options = Self.options(in: result.stderr)
            named += options.count
            guard !options.isEmpty else { continue }
            let help = try cli.run([arguments[0], "--help"])
            for option in options {
                #expect(help.stdout.contains(option), "`capture \(arguments.joined(separator: " "))` says \(option), which `capture \(arguments[0]) --help` does not list: \(result.stderr)")
            }
        }
        #expect(named >= 10, "the rows must name options for this test to mean anything")
    }

    /// The `--option` words of `text` (not `--` alone, not inside a longer word).
    static func options(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"(?<![A-Za-z0-9-])--[a-z][a-z0-9-]*"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }
}
