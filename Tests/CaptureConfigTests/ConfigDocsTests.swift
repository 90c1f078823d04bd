import CaptureConfig
import CaptureWiring
import CaptureTestSupport
import Foundation
import Testing

/// docs/configuration.md's table of keys against the declarations (`ConfigKey+All.swift`):
/// every key has a row with its environment variable, option and default, and every row a key.
@Suite struct ConfigDocsTests {
    static let docs = Repository.root + "/docs/configuration.md"

    /// A row of the table: `| key | environment | option | default | meaning |`.
    struct Row {
        var key: String
        var environment: String
        var option: String
        var defaultValue: String
    }

    /// The rows of the table of keys (lines that begin with `` | ` ``).
    static func rows(_ text: String) -> [Row] {
        text.split(separator: "\n").filter { $0.hasPrefix("| `") }.compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { return nil }
            return Row(key: unquoted(cells[0]), environment: cells[1], option: cells[2], defaultValue: cells[3])
        }
    }

    /// The text of the first code span in `cell` (`` `--url` ``), if any.
    static func firstCode(_ cell: String) -> String? {
        let parts = cell.split(separator: "`", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }

    static func unquoted(_ cell: String) -> String { cell.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }

    /// Every difference between the table in `text` and the declarations, one line each.
    static func mismatches(_ text: String) -> [String] {
        let rows = rows(text)
        var problems: [String] = []
        var byKey: [String: Row] = [:]
        for row in rows {
            if byKey[row.key] != nil { problems.append("docs/configuration.md: '\(row.key)' has two rows") }
            byKey[row.key] = row
            if ConfigKey(name: row.key) == nil {
                problems.append(
                    "docs/configuration.md: the row '\(row.key)' has no key in ConfigKey.allCases (Sources/CaptureConfig/ConfigKey+All.swift)")
            }
        }
        for key in ConfigKey.allCases {
            guard let row = byKey[key.name] else {
                problems.append("docs/configuration.md: no row for '\(key.name)', which ConfigKey.allCases lists")
                continue
            }
            if row.environment != "`\(key.environmentVariable)`" {
                problems.append("docs/configuration.md: '\(key.name)' has the environment \(row.environment), its declaration `\(key.environmentVariable)`")
            }
            if firstCode(row.option) != key.option {
                problems.append(
                    "docs/configuration.md: '\(key.name)' has the option \(firstCode(row.option).map { "`\($0)`" } ?? "none"), "
                        + "its declaration \(key.option.map { "`\($0)`" } ?? "none")")
            }
            // The default as the declaration documents it, then at most a remark in brackets.
            let documented = key.defaultValue.documented
            let rest = row.defaultValue.hasPrefix(documented) ? row.defaultValue.dropFirst(documented.count) : nil
            if rest.map({ !$0.isEmpty && !$0.hasPrefix(" (") }) ?? true {
                problems.append("docs/configuration.md: '\(key.name)' has the default \(row.defaultValue), its declaration \(documented)")
            }
        }
        return problems
    }

    @Test func theTableMatchesTheDeclarations() throws {
        let text = try String(contentsOfFile: Self.docs, encoding: .utf8)
        #expect(Self.rows(text).count == ConfigKey.allCases.count)
        let problems = Self.mismatches(text)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// A key declared but left out of ``ConfigKey/allCases`` would be read from nowhere: every
    /// `ConfigKey("name", …)` of the declarations' file is listed.
    @Test func everyDeclarationIsListed() throws {
        let source = try String(contentsOfFile: Repository.root + "/Sources/CaptureConfig/ConfigKey+All.swift", encoding: .utf8)
        let declared = source.matches(of: /ConfigKey\(\s*"([^"]+)"/).map { String($0.1) }
        #expect(declared.count == ConfigKey.allCases.count)
        for name in declared {
            #expect(ConfigKey(name: name) != nil, "ConfigKey+All.swift declares '\(name)', which ConfigKey.allCases does not list")
        }
    }

    /// The check names each kind of mismatch (so that it can fail).
    @Test func aMismatchIsNamed() throws {
        let text = try String(contentsOfFile: Self.docs, encoding: .utf8)
        func edited(_ edit: (inout [String]) -> Void) -> [String] {
            var lines = text.components(separatedBy: "\n")
            edit(&lines)
            return Self.mismatches(lines.joined(separator: "\n"))
        }
        func replacing(_ old: String, _ new: String) -> [String] {
            edited { lines in
                let index = lines.firstIndex { $0.contains(old) && $0.hasPrefix("| `") }!
                lines[index] = lines[index].replacingOccurrences(of: old, with: new)
            }
        }
        #expect(replacing("`CAPTURE_UPLOAD_MAX_AGE`", "`CAPTURE_MAX_AGE`") == [
            "docs/configuration.md: 'upload.max_age' has the environment `CAPTURE_MAX_AGE`, its declaration `CAPTURE_UPLOAD_MAX_AGE`"
        ])
        #expect(replacing("| `15m` |", "| `10m` |") == [
            "docs/configuration.md: 'collector.retry_budget' has the default `10m`, its declaration `15m`"
        ])
        #expect(replacing("| `--url` |", "| |") == [
            "docs/configuration.md: 'collector.url' has the option none, its declaration `--url`"
        ])
        #expect(edited { $0.removeAll { $0.hasPrefix("| `upload.auto`") } } == [
            "docs/configuration.md: no row for 'upload.auto', which ConfigKey.allCases lists"
        ])
        #expect(edited { $0.append("| `upload.later` | `CAPTURE_UPLOAD_LATER` | | `false` | not yet |") } == [
            "docs/configuration.md: the row 'upload.later' has no key in ConfigKey.allCases (Sources/CaptureConfig/ConfigKey+All.swift)"
        ])
    }
}
