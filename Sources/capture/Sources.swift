import CaptureSensors
import Foundation

/// `--source` specifications.
enum SourceSpec {
    static let help = "A source to capture from: trace:FILE plays a recorded trace live-paced. Repeatable."

    /// Makes a source from its spec, checking now what can be checked (the file and its header).
    static func make(_ spec: String) throws -> any SampleSource {
        if spec.hasPrefix("trace:") {
            let path = absolute(String(spec.dropFirst("trace:".count)))
            try TraceFile(path: path).validateHeader()
            return LiveTraceSource(path: path)
        }
        throw CLIError(.usage, "unknown source '\(spec)'; use trace:FILE")
    }

    /// The spec with a relative trace path made absolute.
    static func normalized(_ spec: String) -> String {
        spec.hasPrefix("trace:") ? "trace:" + absolute(String(spec.dropFirst("trace:".count))) : spec
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL.path
    }
}
