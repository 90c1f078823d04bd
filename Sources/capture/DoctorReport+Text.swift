import CaptureDoctor

extension DoctorReport {
    /// One line per check (`pass  store  quick_check ok, 1.2 MB`, `FAIL  token  … → what to
    /// do`), then the summary line.
    var text: String {
        let width = min(checks.map(\.check.count).max() ?? 0, 16) + 2
        var lines: [String] = []
        for check in checks {
            let word = check.status == .fail ? "FAIL" : check.status.rawValue
            let name = check.check.count + 2 > width ? check.check + "  " : check.check.padding(toLength: width, withPad: " ", startingAt: 0)
            var line = word.padding(toLength: 6, withPad: " ", startingAt: 0) + name + check.detail
            if let advice = check.advice { line += " → " + advice }
            lines.append(line)
        }
        lines.append("doctor: \(passed) passed, \(warnings) warning(s), \(failed) failed")
        return lines.joined(separator: "\n")
    }
}
