/// The source kinds capture knows, and what `--source` specs mean through them.
///
/// A spec is `KIND` or `KIND:ARGUMENT`, split at the first colon: `trace:ride.trace`,
/// `iio:iio:device0@200`, `gpsd`, `gpsd:10.0.0.2:2947`, `nmea:/dev/ttyACM0`.
///
/// ```swift
/// let registry = SourceRegistry.standard
/// let source = try registry.makeSource("trace:fixtures/car.trace", options: SourceOptions())
/// registry.normalized("trace:fixtures/car.trace")  // "trace:/home/me/capture/fixtures/car.trace"
/// ```
package struct SourceRegistry: Sendable {
    /// The kinds, in the order discovery asks them.
    package let kinds: [any SourceKind]

    /// A registry of `kinds`; discovery asks them in this order.
    package init(_ kinds: [any SourceKind]) {
        self.kinds = kinds
    }

    /// Every kind capture ships: one registration line each.
    package static let standard = SourceRegistry([
        TraceSourceKind(),
        IIOSourceKind(),
        GPSDSourceKind(),
        NMEASourceKind(),
    ])

    /// How each kind's specs are written: `trace:FILE`, `iio:iio:deviceN[@HZ]`, ….
    package var syntaxes: [String] { kinds.map(\.syntax) }

    /// The kind named `name`, if registered.
    package func kind(named name: String) -> (any SourceKind)? {
        kinds.first { $0.name == name }
    }

    /// Splits `spec` and finds its kind.
    package func parse(_ spec: String) throws(SourceError) -> (kind: any SourceKind, argument: String?) {
        let (name, argument) = Self.split(spec)
        guard let kind = kind(named: name) else { throw .unknownKind(spec: spec, syntaxes: syntaxes) }
        return (kind, argument)
    }

    /// Whether `spec` names a registered kind with what it needs (a `capture.sources` entry):
    /// kinds whose argument is required say so in their syntax (`trace:FILE`, `nmea:PATH`).
    package func isSource(_ spec: String) -> Bool {
        guard let (kind, argument) = try? parse(spec) else { return false }
        return argument.map { !$0.isEmpty } ?? kind.syntax.hasPrefix(kind.name + "[")
    }

    /// Makes the source `spec` names, checking now what can be checked.
    package func makeSource(_ spec: String, options: SourceOptions = SourceOptions()) throws(SourceError) -> any SampleSource {
        let (kind, argument) = try parse(spec)
        return try kind.makeSource(argument: argument, options: options)
    }

    /// `spec` with relative paths made absolute; an unknown kind is returned unchanged.
    package func normalized(_ spec: String) -> String {
        let (name, argument) = Self.split(spec)
        guard let kind = kind(named: name) else { return spec }
        return Self.join(name, kind.normalized(argument: argument))
    }

    /// Sources found on this machine, each kind asked in registration order.
    package func discover(options: SourceOptions) -> [DiscoveredSource] {
        var found: [DiscoveredSource] = []
        for kind in kinds { found += kind.discover(options: options, found: found) }
        return found
    }

    /// The sources to record from: `specs` checked and normalised, or, when there are none, what
    /// ``discover(options:)`` finds (and throws ``SourceError/nothingFound(sysfsRoot:gpsd:)`` when
    /// that is nothing). ``SourceSelection/announcements`` says what was chosen.
    package func select(_ specs: [String], options: SourceOptions) throws(SourceError) -> SourceSelection {
        guard !specs.isEmpty else {
            let found = discover(options: options)
            guard !found.isEmpty else {
                throw .nothingFound(sysfsRoot: options.sysfsRoot, gpsd: GPSDSource.defaultAddress)
            }
            return SourceSelection(specs: found.map(\.spec), announcements: found)
        }
        var announcements: [DiscoveredSource] = []
        for spec in specs {
            let (kind, argument) = try parse(spec)
            let source = try kind.makeSource(argument: argument, options: options)
            if let line = kind.announcement(for: source) {
                announcements.append(DiscoveredSource(spec: source.name, summary: line))
            }
        }
        return SourceSelection(specs: specs.map(normalized), announcements: announcements)
    }

    static func split(_ spec: String) -> (name: String, argument: String?) {
        guard let colon = spec.firstIndex(of: ":") else { return (spec, nil) }
        return (String(spec[..<colon]), String(spec[spec.index(after: colon)...]))
    }

    static func join(_ name: String, _ argument: String?) -> String {
        argument.map { name + ":" + $0 } ?? name
    }
}

/// The sources a recorder will run, as ``SourceRegistry/select(_:options:)`` chose them.
package struct SourceSelection: Sendable, Equatable {
    /// Normalised specs (absolute paths), for the recorder.
    package var specs: [String]
    /// What to tell the person: every discovered source, or explicit ones with something to say.
    package var announcements: [DiscoveredSource]
}
