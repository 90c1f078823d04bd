import CaptureCore
import CaptureStorage
import CaptureUpload
import Foundation

/// Resolves every key from the flags, the environment and the file (first that sets it wins),
/// else its default, checking each value's meaning.
struct Resolver {
    typealias Value = DeviceConfiguration.Value
    typealias Setting = DeviceConfiguration.Setting<Value>

    let file: ConfigFile?
    let environment: [String: String]
    let flags: [ConfigKey: DeviceConfiguration.Flag]
    let isSource: (String) -> Bool

    func resolve() throws(DeviceConfigurationError) -> [ConfigKey: Setting] {
        var entries: [ConfigKey: Setting] = [:]
        for key in ConfigKey.allCases {
            if let flag = flags[key], !flag.value.isEmpty, key == .collectorURL || key == .trustedOrigins {
                // Checked by UploadSettings, whose messages for bad options the CLI keeps.
                entries[key] = Setting(key == .collectorURL ? .text(flag.value) : .list([flag.value]), from: .option(flag.option))
            } else if let flag = flags[key], !flag.value.isEmpty {
                entries[key] = try parse(key, flag.value, origin: .option(flag.option), place: flag.option, splitLists: false)
            } else if let text = environment[key.environmentVariable], !text.isEmpty {
                let name = key.environmentVariable
                entries[key] = try parse(key, text, origin: .environment(name), place: "$" + name, splitLists: true)
            } else if let file, let value = file.values[key] {
                entries[key] = try fromFile(key, value, file: file)
            } else {
                entries[key] = Setting(defaultValue(key), from: .builtIn)
            }
        }
        return entries
    }

    /// Checks every value the file sets (``ConfigFile/parse(_:path:isSource:)`` calls this).
    func checkFile() throws(DeviceConfigurationError) {
        guard let file else { return }
        for (key, value) in file.values { _ = try fromFile(key, value, file: file) }
    }

    private func fromFile(_ key: ConfigKey, _ value: ConfigFile.Value, file: ConfigFile) throws(DeviceConfigurationError)
        -> Setting
    {
        let origin = UploadSettings.Origin.file(path: file.path, key: key.name)
        let line = file.lines[key]
        switch value {
        case .bool(let flag): return Setting(.bool(flag), from: origin)
        case .int(let number):
            return try parse(key, String(number), origin: origin, place: file.path, line: line, splitLists: false)
        case .string(let text): return try parse(key, text, origin: origin, place: file.path, line: line, splitLists: false)
        case .strings(let items): return try parseList(key, items, origin: origin, place: file.path, line: line)
        case .zones(let zones): return Setting(.zones(zones), from: origin)
        }
    }

    /// Parses `text` as the value of `key`; lists are split (on commas, or semicolons for zones)
    /// when `splitLists`, else they are one item.
    func parse(
        _ key: ConfigKey, _ text: String, origin: UploadSettings.Origin, place: String, line: Int? = nil,
        splitLists: Bool
    ) throws(DeviceConfigurationError) -> Setting {
        func bad() -> DeviceConfigurationError {
            DeviceConfigurationError(place: place, line: line, key: key.name, expected: key.expected, kind: .badValue(found: text))
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let value: Value
        switch key {
        case .dataDirectory:
            value = .text(URL(fileURLWithPath: trimmed).standardizedFileURL.path)
        case .tokenFile, .authClientSecretFile:
            value = .text(trimmed)
        case .authClientID:
            guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isWhitespace || $0.isNewline }) else { throw bad() }
            value = .text(trimmed)
        case .logLevel:
            guard let level = LogLevel(rawValue: trimmed.lowercased()) else { throw bad() }
            value = .level(level)
        case .collectorURL, .authIssuer:
            guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host != nil
            else { throw bad() }
            value = .text(trimmed)
        case .trustedOrigins, .sources:
            let items =
                splitLists
                ? trimmed.split(whereSeparator: { $0 == "," || (key == .trustedOrigins && $0.isWhitespace) })
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                : [trimmed]
            return try parseList(key, items, origin: origin, place: place, line: line)
        case .retryBudget, .maxAge:
            guard let span = TimeSpan(parsing: trimmed) else { throw bad() }
            value = .span(span)
        case .flushInterval:
            guard let span = TimeSpan(parsing: trimmed), (0.05...3600).contains(span.seconds) else { throw bad() }
            value = .span(span)
        case .uploadAuto, .unmeteredOnly:
            switch trimmed.lowercased() {
            case "true", "yes", "on", "1": value = .bool(true)
            case "false", "no", "off", "0": value = .bool(false)
            default: throw bad()
            }
        case .minWaiting:
            guard let number = Int(trimmed), number >= 1 else { throw bad() }
            value = .int(number)
        case .keepUploadedDays:
            if trimmed.lowercased() == "forever" {
                value = .int(nil)
            } else {
                guard let number = Int(trimmed), number >= 0 else { throw bad() }
                value = .int(number)
            }
        case .maxStoreSize, .payloadLimit:
            if ["unlimited", "none"].contains(trimmed.lowercased()) {
                value = .size(nil)
            } else {
                guard let size = ByteSize(parsing: trimmed) else { throw bad() }
                value = .size(size)
            }
        case .dropUnsent:
            guard let drop = RetentionPolicy.UnsentDrop(rawValue: trimmed.lowercased()) else { throw bad() }
            value = .drop(drop)
        case .modality:
            guard let modality = Modality(parsing: trimmed) else { throw bad() }
            value = .modality(modality)
        case .privacyZones:
            var zones: [PrivacyZone] = []
            for part in trimmed.split(separator: ";") where !part.trimmingCharacters(in: .whitespaces).isEmpty {
                let numbers = part.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard numbers.count == 3, let latitude = numbers[0], let longitude = numbers[1], let radius = numbers[2],
                    let zone = PrivacyZone(latitude: latitude, longitude: longitude, radius: radius)
                else { throw bad() }
                zones.append(zone)
            }
            value = .zones(zones)
        }
        return Setting(value, from: origin)
    }

    private func parseList(
        _ key: ConfigKey, _ items: [String], origin: UploadSettings.Origin, place: String, line: Int?
    ) throws(DeviceConfigurationError) -> Setting {
        for item in items {
            let valid = key == .sources ? isSource(item) : URLOrigin(item) != nil
            guard valid else {
                throw DeviceConfigurationError(
                    place: place, line: line, key: key.name, expected: key.expected, kind: .badValue(found: item))
            }
        }
        return Setting(.list(items), from: origin)
    }

    /// The value a key has when nothing sets it.
    func defaultValue(_ key: ConfigKey) -> Value {
        switch key {
        case .dataDirectory:
            let chosen =
                environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/capture" }
                ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/capture")
            return .text(URL(fileURLWithPath: chosen).standardizedFileURL.path)
        case .logLevel: return .level(.warning)
        case .collectorURL, .tokenFile, .authIssuer, .authClientID, .authClientSecretFile: return .none
        case .trustedOrigins, .sources: return .list([])
        case .retryBudget: return .span(TimeSpan(seconds: 900)!)
        case .uploadAuto: return .bool(DeliveryPolicy.standard.automatic)
        case .minWaiting: return .int(DeliveryPolicy.standard.minWaiting)
        case .maxAge: return .span(DeliveryPolicy.standard.maxAge)
        case .unmeteredOnly: return .bool(DeliveryPolicy.standard.unmeteredOnly)
        case .keepUploadedDays: return .int(RetentionPolicy.standard.keepUploadedDays)
        case .maxStoreSize: return .size(RetentionPolicy.standard.maxStoreSize)
        case .payloadLimit: return .size(ByteSize(bytes: UploadRun.Options.collectorPayloadLimit))
        case .dropUnsent: return .drop(RetentionPolicy.standard.dropUnsent)
        case .modality: return .modality(nil)
        case .flushInterval: return .span(TimeSpan(seconds: 1)!)
        case .privacyZones: return .zones([])
        }
    }
}
