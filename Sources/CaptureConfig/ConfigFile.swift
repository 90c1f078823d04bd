import CaptureCore
import Configuration
import Foundation
import Yams

/// The configuration file, read and checked: every key known, every value of the right shape.
///
/// The typed values (strings, numbers, booleans, lists of strings) are read through
/// swift-configuration's `YAMLSnapshot` (its YAML trait). That snapshot cannot do three things
/// the file needs, so Yams, which the trait itself parses with, does them first:
/// - list the keys a file holds: the snapshot answers only for keys asked for, so a misspelt key
///   (`colector:`) would be silently ignored; here it is an error naming the key and its line;
/// - lists of mappings: the snapshot refuses a whole file that holds one (`privacy.zones`);
/// - line numbers for messages.
/// The snapshot is therefore given the document without the zones, which Yams reads.
package struct ConfigFile: Sendable, Equatable {
    /// A value as the file holds it.
    enum Value: Sendable, Equatable {
        case bool(Bool)
        case int(Int)
        case string(String)
        case strings([String])
        case zones([PrivacyZone])
    }

    /// The file's path.
    package let path: String
    /// Its values, for the keys it sets (a key with an empty value is not set).
    var values: [ConfigKey: Value]
    /// The line of each key, 1-based.
    var lines: [ConfigKey: Int]

    /// The keys the file sets.
    package var keys: Set<ConfigKey> { Set(values.keys) }

    /// The standard place of the system-wide file.
    package static let systemPath = "/etc/capture/config.yaml"

    /// Where the file is looked for: `$CAPTURE_CONFIG` (which must then exist), else
    /// `$XDG_CONFIG_HOME/capture/config.yaml` (`~/.config/capture/config.yaml`), else
    /// `systemPath`; the first that exists. `nil`: no file (every value from elsewhere).
    package static func locate(
        environment: [String: String], systemPath: String = ConfigFile.systemPath
    ) -> (path: String, explicit: Bool)? {
        if let named = environment["CAPTURE_CONFIG"], !named.isEmpty { return (named, true) }
        let configHome =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        for candidate in [configHome + "/capture/config.yaml", systemPath]
        where FileManager.default.fileExists(atPath: candidate) {
            return (candidate, false)
        }
        return nil
    }

    /// Reads and checks the file at `path`.
    ///
    /// - Parameter isSource: whether a `capture.sources` entry names a known kind of source.
    /// - Throws: ``DeviceConfigurationError`` for a file that cannot be read, is not YAML, holds
    ///   an unknown key or a value of the wrong type or range.
    package static func read(path: String, isSource: @escaping (String) -> Bool = { _ in true }) throws(DeviceConfigurationError)
        -> ConfigFile
    {
        let text: String
        do {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw DeviceConfigurationError(
                    place: path, key: "", expected: "a YAML file", kind: .unreadable(reason: "it is a directory"))
            }
            // open(2) and read, not Data(contentsOf:), which refuses character devices such as
            // /dev/null (`CAPTURE_CONFIG=/dev/null`: no file).
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw DeviceConfigurationError(
                    place: path, key: "", expected: "a readable file",
                    kind: .unreadable(reason: String(cString: strerror(errno)).lowercased()))
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            let data = try handle.readToEnd() ?? Data()
            guard let decoded = String(data: data, encoding: .utf8) else {
                throw DeviceConfigurationError(
                    place: path, key: "", expected: "UTF-8 text", kind: .malformed(reason: "not UTF-8 text"))
            }
            text = decoded
        } catch let error as DeviceConfigurationError {
            throw error
        } catch {
            let reason = Self.reason(for: error)
            throw DeviceConfigurationError(place: path, key: "", expected: "a readable file", kind: .unreadable(reason: reason))
        }
        return try parse(text, path: path, isSource: isSource)
    }

    /// Checks `text` as the contents of the file at `path`.
    package static func parse(_ text: String, path: String, isSource: @escaping (String) -> Bool = { _ in true })
        throws(DeviceConfigurationError) -> ConfigFile
    {
        let topLevel = "the keys " + (ConfigKey.allCases.filter { $0.path.count == 1 }.map(\.name)
            + ConfigKey.sections.keys.sorted()).joined(separator: ", ")
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            let (line, reason) = Self.describe(error)
            throw DeviceConfigurationError(place: path, line: line, key: "", expected: topLevel, kind: .malformed(reason: reason))
        }
        var file = ConfigFile(path: path, values: [:], lines: [:])
        // An empty file (or only comments) sets nothing.
        guard let root, !(root.null != nil) else { return file }
        guard let mapping = root.mapping else {
            throw DeviceConfigurationError(
                place: path, line: root.mark.map { $0.line }, key: "", expected: topLevel,
                kind: .malformed(reason: "the top level is not a mapping"))
        }
        // 1. Yams: every key known (the document whole, first).
        var leaves: [ConfigKey: Node] = [:]
        // The document without the zones, for the snapshot, which refuses lists of mappings.
        var withoutZones: [(Node, Node)] = []
        for (keyNode, value) in mapping {
            let name = keyNode.string ?? ""
            let line = keyNode.mark?.line
            if let key = ConfigKey(name: name), key.path.count == 1 {
                leaves[key] = value
                if key.type.fileValue != .zones { withoutZones.append((keyNode, value)) }
            } else if let allowed = ConfigKey.sections[name] {
                if value.null != nil { continue }
                guard let section = value.mapping else {
                    throw DeviceConfigurationError(
                        place: path, line: line, key: name,
                        expected: "a mapping with the keys " + allowed.joined(separator: ", "),
                        kind: .badValue(found: value.string ?? "a list"))
                }
                var sectionWithoutZones: [(Node, Node)] = []
                for (subNode, subValue) in section {
                    let sub = subNode.string ?? ""
                    guard let key = ConfigKey(name: name + "." + sub) else {
                        throw DeviceConfigurationError(
                            place: path, line: subNode.mark?.line, key: name + "." + sub,
                            expected: "one of " + allowed.map { name + "." + $0 }.joined(separator: ", "),
                            kind: .unknownKey)
                    }
                    leaves[key] = subValue
                    if key.type.fileValue != .zones { sectionWithoutZones.append((subNode, subValue)) }
                }
                if !sectionWithoutZones.isEmpty { withoutZones.append((keyNode, .mapping(Node.Mapping(sectionWithoutZones)))) }
            } else {
                throw DeviceConfigurationError(place: path, line: line, key: name, expected: topLevel, kind: .unknownKey)
            }
        }
        for (key, node) in leaves { file.lines[key] = node.mark?.line }

        // 2. swift-configuration: the typed values of everything but the zones.
        let document = Node.mapping(Node.Mapping(withoutZones))
        let snapshot: YAMLSnapshot
        do {
            let serialized = try Yams.serialize(node: document)
            let bytes = Array(serialized.utf8)
            snapshot = try YAMLSnapshot(data: bytes.span.bytes, providerName: path, parsingOptions: .default)
        } catch {
            throw DeviceConfigurationError(
                place: path, key: "", expected: topLevel, kind: .malformed(reason: "\(error)"))
        }
        // Key by key in the file's order (so that of two bad values the first is reported): the
        // shape (Yams), the typed value (the snapshot, or Yams for the zones), its meaning (the
        // resolver), so that nothing starts with a bad file.
        let resolver = Resolver(flags: [:], environment: [:], file: nil, isSource: isSource)
        let ordered = leaves.sorted { ($0.value.mark?.line ?? 0, $0.key) < ($1.value.mark?.line ?? 0, $1.key) }
        for (key, node) in ordered where node.null == nil {
            let isList = key.type.isList
            let shapeOK = isList ? node.sequence != nil : node.scalar != nil
            guard shapeOK else {
                throw DeviceConfigurationError(
                    place: path, line: node.mark?.line, key: key.name, expected: key.expected,
                    kind: .badValue(found: isList ? (node.string ?? "a mapping") : (node.sequence != nil ? "a list" : "a mapping")))
            }
            let found = node.string ?? node.sequence.map { $0.compactMap(\.string).joined(separator: ", ") } ?? ""
            func bad() -> DeviceConfigurationError {
                DeviceConfigurationError(
                    place: path, line: node.mark?.line, key: key.name, expected: key.expected, kind: .badValue(found: found))
            }
            func lookUp(_ type: ConfigType) -> ConfigContent? {
                (try? snapshot.value(forKey: AbsoluteConfigKey(key.path), type: type))?.value?.content
            }
            let value: Value
            switch key.type.fileValue {
            case .zones:
                guard let items = node.sequence else { throw bad() }
                value = .zones(try Self.zones(items, key: key, path: path))
            case .bool:
                guard case .bool(let flag) = lookUp(.bool) else { throw bad() }
                value = .bool(flag)
            case .int:
                guard case .int(let number) = lookUp(.int) else { throw bad() }
                value = .int(number)
            case .intOrString:
                if case .int(let number) = lookUp(.int) {
                    value = .int(number)
                } else if case .string(let word) = lookUp(.string) {
                    value = .string(word)
                } else {
                    throw bad()
                }
            case .strings:
                guard case .stringArray(let items) = lookUp(.stringArray) else { throw bad() }
                value = .strings(items)
            case .string:
                guard case .string(let string) = lookUp(.string) else { throw bad() }
                if string.isEmpty { continue }
                value = .string(string)
            }
            file.values[key] = value
            _ = try resolver.fromFile(key, value, file: file)
        }
        return file
    }

    /// `privacy.zones`: a list of `{latitude, longitude, radius}`.
    private static func zones(_ list: Node.Sequence, key zonesKey: ConfigKey, path: String) throws(DeviceConfigurationError)
        -> [PrivacyZone]
    {
        var zones: [PrivacyZone] = []
        for (index, item) in list.enumerated() {
            let key = "\(zonesKey.name)[\(index)]"
            func bad(_ found: String) -> DeviceConfigurationError {
                DeviceConfigurationError(
                    place: path, line: item.mark?.line, key: key, expected: zonesKey.expected,
                    kind: .badValue(found: found))
            }
            guard let mapping = item.mapping else { throw bad(item.string ?? "a list") }
            var numbers: [String: Double] = [:]
            for (fieldNode, value) in mapping {
                let field = fieldNode.string ?? ""
                guard ["latitude", "longitude", "radius"].contains(field) else {
                    throw DeviceConfigurationError(
                        place: path, line: fieldNode.mark?.line, key: key + "." + field,
                        expected: "latitude, longitude and radius", kind: .unknownKey)
                }
                guard let text = value.scalar?.string, let number = Double(text), number.isFinite else {
                    throw DeviceConfigurationError(
                        place: path, line: value.mark?.line, key: key + "." + field, expected: "a number",
                        kind: .badValue(found: value.string ?? "a list"))
                }
                numbers[field] = number
            }
            guard let latitude = numbers["latitude"], let longitude = numbers["longitude"], let radius = numbers["radius"]
            else { throw bad("missing " + ["latitude", "longitude", "radius"].filter { numbers[$0] == nil }.joined(separator: ", ")) }
            guard let zone = PrivacyZone(latitude: latitude, longitude: longitude, radius: radius) else {
                throw bad("latitude \(Self.number(latitude)), longitude \(Self.number(longitude)), radius \(Self.number(radius))")
            }
            zones.append(zone)
        }
        return zones
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The line and problem of a Yams error.
    private static func describe(_ error: any Error) -> (Int?, String) {
        guard let error = error as? YamlError else { return (nil, "\(error)") }
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return (mark.line, problem)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return (context.mark.line, "duplicated key " + duplicates.joined(separator: ", "))
        case .reader(let problem, _, _, _): return (nil, problem)
        default: return (nil, "\(error)")
        }
    }

    private static func reason(for error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        switch nsError.code {
        case NSFileReadNoSuchFileError: return "no such file"
        case NSFileReadNoPermissionError: return "permission denied"
        default: return nsError.localizedDescription
        }
    }
}
