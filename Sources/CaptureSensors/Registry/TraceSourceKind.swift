/// `trace:FILE`: plays a recorded trace live-paced (``LiveTraceSource``).
public struct TraceSourceKind: SourceKind {
    public let name = "trace"
    public let syntax = "trace:FILE"

    /// The kind, for ``SourceRegistry/standard``.
    public init() {}

    public func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource {
        guard let argument, !argument.isEmpty else { throw .malformed(spec: name + (argument.map { ":" + $0 } ?? ""), syntax: syntax) }
        let path = SourcePath.absolute(argument)
        do {
            try TraceFile(path: path).validateHeader()
        } catch {
            throw .trace(error)
        }
        return LiveTraceSource(path: path)
    }

    public func normalized(argument: String?) -> String? {
        argument.map { $0.isEmpty ? $0 : SourcePath.absolute($0) }
    }
}
