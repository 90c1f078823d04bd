import CaptureCore
import CaptureUpload
import Foundation

extension UploadResult {
    /// `measurement 7: uploaded, 1.2 MB in 0.4 s` or `measurement 7: failed (reason)`, with a
    /// part's place and an attachment's name: the line `capture upload` and `capture sync` print.
    var line: String {
        var text = "measurement \(measurement)"
        if let part { text += " (\(part.text))" }
        if let attachment { text += " attachment \(attachment) (\(name ?? "?"))" }
        text += ": \(outcome.rawValue)"
        if let bytes, let seconds, outcome == .uploaded, reason == nil {
            text += ", \(ByteCount.text(bytes)) in \(String(format: "%.1f", seconds)) s"
        }
        if let reason { text += " (\(reason))" }
        return text
    }
}
