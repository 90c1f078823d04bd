import CaptureTestSupport
import Foundation
import Testing

/// The exit codes exist once in code (`ExitStatus`, which makes the EXIT CODES section of
/// `capture --help`); the README's table must say the same, code for code and meaning for meaning.
@Suite struct ExitCodeTableTests {
    /// `code → meaning` from the README's "### Exit codes" table, in order. Backticks are
    /// Markdown's code formatting, not part of the meaning, and are dropped.
    static func readmeTable() throws -> [(code: Int32, meaning: String)] {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let heading = try #require(lines.firstIndex(of: "### Exit codes"), "README has no '### Exit codes' section")
        var rows: [(Int32, String)] = []
        var inTable = false
        for line in lines[(heading + 1)...] {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let code = Int32(cells[0]) else { continue }  // header, separator
            rows.append((code, cells[1].replacingOccurrences(of: "`", with: "")))
        }
        return rows
    }

    /// `code → meaning` from the EXIT CODES section of `capture --help`, in order. A line that
    /// does not start with a code continues the meaning above it (should the help be wrapped).
    static func helpSection(_ help: String) throws -> [(code: Int32, meaning: String)] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(
            lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "EXIT CODES" },
            "no EXIT CODES section in:\n\(help)")
        var rows: [(Int32, String)] = []
        for line in lines[(start + 1)...] {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { break }
            let parts = text.split(separator: " ", maxSplits: 1)
            if let code = Int32(parts[0]), parts.count == 2 {
                rows.append((code, parts[1].trimmingCharacters(in: .whitespaces)))
            } else if !rows.isEmpty {
                rows[rows.count - 1].1 += " " + text
            } else {
                break
            }
        }
        return rows
    }

    @Test("the README's exit-code table is the one in `capture --help`, code for code, meaning for meaning")
    func readmeMatchesHelp() throws {
        let help = try Program.run(BuiltProducts.path("capture"), ["--help"])
        #expect(help.status == 0, "\(help.stderr)")
        let fromHelp = try Self.helpSection(help.stdout)
        let fromReadme = try Self.readmeTable()
        #expect(fromHelp.count >= 10, "too few exit codes parsed from --help:\n\(help.stdout)")
        // One line per code: a summary too long for 80 columns gets wrapped by ArgumentParser.
        let section = help.stdout.components(separatedBy: "EXIT CODES\n").last?.components(separatedBy: "\n\n").first ?? ""
        #expect(section.split(separator: "\n").count == fromHelp.count, "a summary wraps:\n\(section)")
        #expect(fromReadme.map(\.code) == fromHelp.map(\.code), "codes differ")
        for (readme, help) in zip(fromReadme, fromHelp) where readme.code == help.code {
            #expect(readme.meaning == help.meaning, "exit code \(readme.code)")
        }
    }
}
