/// `trace:FILE`: plays a recorded trace live-paced as a simulated device (``LiveTraceSource``),
/// its marks driving the measurement. `FILE` may end in the options of ``TraceSpec``
/// (`@loop`, `@speed=N`, `@delay=MS`), which is how a stored source name keeps them for `capture resume`.
package struct TraceSourceKind: SourceKind {
    package let name = "trace"
    package let syntax = "trace:FILE"

    /// The kind, for ``SourceRegistry/standard``.
    package init() {}

    package func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource {
        guard let argument, !argument.isEmpty else { throw .malformed(spec: name + (argument.map { ":" + $0 } ?? ""), syntax: syntax) }
        let spec = TraceSpec(parsing: argument)
        let path = SourcePath.absolute(spec.path)
        do {
            try TraceFile(path: path).validateHeader()
        } catch {
            throw .trace(error)
        }
        return LiveTraceSource(path: path, speed: spec.speed, loop: spec.loop || options.loop, delay: spec.delay)
    }

    package func normalized(argument: String?) -> String? {
        argument.map { argument in
            guard !argument.isEmpty else { return argument }
            var spec = TraceSpec(parsing: argument)
            spec.path = SourcePath.absolute(spec.path)
            return spec.argument
        }
    }
}
