/// `gpsd[:HOST:PORT]`: positions from gpsd (default ``GPSDSource/defaultAddress``).
package struct GPSDSourceKind: SourceKind {
    package let name = "gpsd"
    package let syntax = "gpsd[:HOST:PORT]"

    /// The kind, for ``SourceRegistry/standard``.
    package init() {}

    package func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource {
        guard let argument else { return GPSDSource() }
        guard let source = GPSDSource(address: argument) else { throw .badAddress(spec: name + ":" + argument) }
        return source
    }

    /// gpsd at its default address, if it answers.
    package func discover(options: SourceOptions, found: [DiscoveredSource]) -> [DiscoveredSource] {
        let gpsd = GPSDSource()
        guard gpsd.isReachable() else { return [] }
        return [DiscoveredSource(spec: gpsd.name, summary: "gpsd answers at \(GPSDSource.defaultAddress)", deliversFixes: true)]
    }
}
