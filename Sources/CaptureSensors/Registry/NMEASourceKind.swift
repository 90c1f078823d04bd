import Glibc

/// `nmea:PATH`: NMEA 0183 from a tty, a pty, `/dev/gnss0` or a file (``NMEASource``).
package struct NMEASourceKind: SourceKind {
    package let name = "nmea"
    package let syntax = "nmea:PATH"

    /// The kind, for ``SourceRegistry/standard``.
    package init() {}

    package func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource {
        guard let argument, !argument.isEmpty else { throw .malformed(spec: name + (argument.map { ":" + $0 } ?? ""), syntax: syntax) }
        let path = SourcePath.absolute(argument)
        guard access(path, F_OK) == 0 else { throw .noReceiver(path: path) }
        return NMEASource(path: path)
    }

    package func normalized(argument: String?) -> String? {
        argument.map { $0.isEmpty ? $0 : SourcePath.absolute($0) }
    }

    /// The first GNSS device node, unless a kind asked before delivers fixes already (gpsd).
    package func discover(options: SourceOptions, found: [DiscoveredSource]) -> [DiscoveredSource] {
        guard !found.contains(where: \.deliversFixes), let node = Self.deviceNodes(root: options.sysfsRoot).first else { return [] }
        return [DiscoveredSource(spec: name + ":" + node, summary: "NMEA receiver at \(node)", deliversFixes: true)]
    }

    /// GNSS device nodes that exist under `<root>/dev`: `gnss*`, `ttyACM*`, `ttyUSB*`.
    package static func deviceNodes(root: String) -> [String] {
        let dev = SysfsDirectory(path: IIODiscovery.join(root, "dev"))
        let names = dev.entries().filter { $0.hasPrefix("gnss") || $0.hasPrefix("ttyACM") || $0.hasPrefix("ttyUSB") }
        return names.map { dev.path + "/" + $0 }
    }
}
