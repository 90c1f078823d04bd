import CaptureSensors

extension UBloxSetupReport {
    /// What `capture gnss setup` prints: one line about the module, one per message, and a
    /// summary, each ending in a newline.
    var text: String {
        func padded(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        var lines = ["\(device): \(module.description), \(module.generation == .legacy ? "CFG messages" : "configuration items")"]
        for step in steps {
            lines.append("  \(padded(step.outcome.rawValue, 12)) \(padded(step.message, 10)) \(step.purpose)")
        }
        let refused = steps.filter { $0.outcome != .acknowledged && $0.outcome != .notSent }.count
        if dryRun {
            lines.append("dry run: \(steps.count) messages not sent")
        } else if refused == 0 {
            lines.append("set up: \(steps.count) messages acknowledged")
        } else {
            lines.append("\(refused) of \(steps.count) messages refused or unanswered; the others are in effect")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
