/// One kind of `--source`: the word before the first colon of a spec (`trace`, `iio`, `gpsd`,
/// `nmea`) and what a spec of that kind means.
///
/// A new kind is one file with a type conforming to this protocol plus one line in
/// ``SourceRegistry/standard``.
///
/// ```swift
/// struct TraceSourceKind: SourceKind {
///     let name = "trace"
///     let syntax = "trace:FILE"
///     func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource { … }
/// }
/// ```
package protocol SourceKind: Sendable {
    /// The word before the first colon of a spec: `trace` in `trace:ride.trace`.
    var name: String { get }

    /// How a spec of this kind is written, for help texts and errors: `trace:FILE`.
    var syntax: String { get }

    /// Makes a source from the part of the spec after `name:` (`nil` for a bare `gpsd`), checking
    /// now what can be checked (the file and its header, the device and its calibration).
    func makeSource(argument: String?, options: SourceOptions) throws(SourceError) -> any SampleSource

    /// The argument with relative paths made absolute, so that a recorder started from another
    /// directory (or on `capture resume`) finds the same thing. The default returns it unchanged.
    func normalized(argument: String?) -> String?

    /// Sources of this kind found on this machine. `found` holds what the kinds registered
    /// before this one found (so a NMEA receiver is only proposed when gpsd does not answer).
    /// The default finds nothing.
    func discover(options: SourceOptions, found: [DiscoveredSource]) -> [DiscoveredSource]

    /// A line worth telling the person who asked for `source` explicitly (the rate chosen for
    /// an IIO device), or `nil`. The default says nothing.
    func announcement(for source: any SampleSource) -> String?
}

extension SourceKind {
    package func normalized(argument: String?) -> String? { argument }

    package func discover(options: SourceOptions, found: [DiscoveredSource]) -> [DiscoveredSource] { [] }

    package func announcement(for source: any SampleSource) -> String? { nil }
}

/// Options that shape device sources.
package struct SourceOptions: Sendable, Equatable, Codable {
    /// Where `sys/bus/iio/devices` and `dev` are looked up (`/`, or a fake tree in tests).
    package var sysfsRoot: String
    /// The IIO sampling rate asked for, Hz (see ``isAcceptable(rate:)``).
    package var rate: Double?
    /// Whether trace sources start again from the top when they end (`--loop`).
    package var loop: Bool
    /// The longest an IIO scan may wait in the kernel's buffer, seconds (``IIOSource/maxLatency``);
    /// `nil`: the source's default. The recorder sets half its flush interval.
    package var maxLatency: Double?

    /// Options with `sysfsRoot` made absolute.
    package init(sysfsRoot: String = "/", rate: Double? = nil, loop: Bool = false, maxLatency: Double? = nil) {
        self.sysfsRoot = SourcePath.absolute(sysfsRoot)
        self.rate = rate
        self.loop = loop
        self.maxLatency = maxLatency
    }

    /// Whether `rate` is a sampling rate capture asks a device for: above 0 and at most 100 kHz.
    /// The one place the range is decided, for `--rate` and for `iio:…@HZ`.
    package static func isAcceptable(rate: Double) -> Bool { rate > 0 && rate <= 100_000 }
}

/// A source found on this machine, with one line saying what it is.
package struct DiscoveredSource: Sendable, Equatable, Codable {
    /// The spec that captures from it: `iio:iio:device0`, `gpsd:127.0.0.1:2947`.
    package var spec: String
    /// One line for the person: `iio:device0 (bmi160), acc+gyr, buffered`.
    package var summary: String
    /// Whether it delivers fixes (gpsd, a GNSS receiver).
    package var deliversFixes: Bool

    /// A found source.
    package init(spec: String, summary: String, deliversFixes: Bool = false) {
        self.spec = spec
        self.summary = summary
        self.deliversFixes = deliversFixes
    }
}
