/// `iio:iio:deviceN[@HZ]`: captures from an IIO device under the sysfs root
/// (``SourceOptions/sysfsRoot``); `iio:/abs/sys/bus/iio/devices/iio:deviceN` names one under
/// another root. `@HZ` gives the device a rate of its own. Source names carry both, which is how
/// the recorder gets the same capture back on `capture resume`.
package struct IIOSourceKind: SourceKind {
    package let name = "iio"
    package let syntax = "iio:iio:deviceN[@HZ]"

    /// The kind, for ``SourceRegistry/standard``.
    package init() {}

    package func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource {
        guard let argument, !argument.isEmpty else { throw .malformed(spec: name + (argument.map { ":" + $0 } ?? ""), syntax: syntax) }
        return try source(argument, options: options)
    }

    func source(_ argument: String, options: SourceOptions) throws(SourceError) -> IIOSource {
        var rate = options.rate
        var value = argument
        if let at = argument.lastIndex(of: "@") {
            guard let asked = Double(argument[argument.index(after: at)...]), SourceOptions.isAcceptable(rate: asked) else {
                throw .badRate(spec: "iio:" + argument)
            }
            rate = asked
            value = String(argument[..<at])
        }
        var root = options.sysfsRoot
        var id = value
        if value.hasPrefix("/") {
            let marker = "/sys/bus/iio/devices/"
            guard let range = value.range(of: marker, options: .backwards) else { throw .notADeviceDirectory(path: value) }
            root = String(value[..<range.lowerBound])
            if root.isEmpty { root = "/" }
            id = String(value[range.upperBound...])
        }
        guard let device = IIODiscovery.device(id: id, root: root) else {
            throw .noDevice(id: id, directory: IIODiscovery.devicesDirectory(root: root).path)
        }
        guard device.isUseful else { throw .notUseful(id: id, name: device.name) }
        do {
            var source = try IIOSource(device: device, rate: rate)
            if let maxLatency = options.maxLatency { source.maxLatency = min(source.maxLatency, maxLatency) }
            return source
        } catch {
            throw .unreadableDevice(id: id, reason: "\(error)")
        }
    }

    /// Every useful device under the sysfs root that can be prepared.
    package func discover(options: SourceOptions, found: [DiscoveredSource]) -> [DiscoveredSource] {
        IIODiscovery.devices(root: options.sysfsRoot).filter(\.isUseful).compactMap { device in
            guard let source = try? self.source(device.id, options: options) else { return nil }
            return DiscoveredSource(spec: source.name, summary: source.summary)
        }
    }

    /// The rate chosen, when one was asked for.
    package func announcement(for source: any SampleSource) -> String? {
        guard let iio = source as? IIOSource, iio.requestedRate != nil else { return nil }
        return iio.summary
    }
}
