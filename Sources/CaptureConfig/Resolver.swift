/// The one layering of the settings: for every key, the first of its option, its environment
/// variable, the configuration file, its field of `upload.json` and its default that sets it
/// (an empty value sets nothing), checked by the key's type.
struct Resolver {
    typealias Value = DeviceConfiguration.Value
    typealias Setting = DeviceConfiguration.Setting<Value>

    let flags: [ConfigKey: DeviceConfiguration.Flag]
    let environment: [String: String]
    let file: ConfigFile?
    /// Read once the data directory is known (it is in the data directory).
    var uploadJSON: UploadJSON?
    let isSource: (String) -> Bool

    /// Every key's value and origin.
    func resolve() throws(DeviceConfigurationError) -> [ConfigKey: Setting] {
        var entries: [ConfigKey: Setting] = [:]
        for key in ConfigKey.allCases { entries[key] = try resolve(key) }
        return entries
    }

    /// `key`'s value and origin.
    func resolve(_ key: ConfigKey) throws(DeviceConfigurationError) -> Setting {
        if let flag = flags[key], case let items = flag.values.filter({ !$0.isEmpty }), !items.isEmpty {
            // An option is one value; a repeated one (`--trust-origin`) gives one item each.
            let origin = DeviceConfiguration.Origin.option(flag.option)
            return key.type.isList
                ? try check(key, at: flag.option) { () throws(ConfigValueType.BadValue) in
                    let trimmed = items.map { $0.trimmingCharacters(in: .whitespaces) }
                    return Setting(try key.type.parse(items: trimmed, isSource: isSource), from: origin)
                }
                : try parse(key, items[0], origin: origin, place: flag.option, split: false)
        }
        if let text = environment[key.environmentVariable], !text.isEmpty {
            let name = key.environmentVariable
            return try parse(key, text, origin: .environment(name), place: "$" + name, split: true)
        }
        if let file, let value = file.values[key] {
            return try fromFile(key, value, file: file)
        }
        if let uploadJSON, let name = key.uploadJSONField, let field = uploadJSON.fields[name] {
            let origin = DeviceConfiguration.Origin.file(path: uploadJSON.path, key: name)
            switch field {
            case .text(let text): return try parse(key, text, origin: origin, place: uploadJSON.path, split: true)
            case .items(let items): return try parse(key, items.joined(separator: ","), origin: origin, place: uploadJSON.path, split: true)
            }
        }
        return Setting(key.defaultValue.value(key.type, environment: environment), from: .builtIn)
    }

    /// A value of the file as `key`'s setting (``ConfigFile/parse(_:path:isSource:)`` checks
    /// each value with this as it reads it).
    func fromFile(_ key: ConfigKey, _ value: ConfigFile.Value, file: ConfigFile) throws(DeviceConfigurationError)
        -> Setting
    {
        let origin = DeviceConfiguration.Origin.file(path: file.path, key: key.name)
        let line = file.lines[key]
        switch value {
        case .bool(let flag): return Setting(.bool(flag), from: origin)
        case .int(let number): return try parse(key, String(number), origin: origin, place: file.path, line: line, split: false)
        case .string(let text): return try parse(key, text, origin: origin, place: file.path, line: line, split: false)
        case .strings(let items):
            return try check(key, at: file.path, line: line) { () throws(ConfigValueType.BadValue) in
                Setting(try key.type.parse(items: items, isSource: isSource), from: origin)
            }
        case .zones(let zones): return Setting(.zones(zones), from: origin)
        }
    }

    private func parse(
        _ key: ConfigKey, _ text: String, origin: DeviceConfiguration.Origin, place: String, line: Int? = nil, split: Bool
    ) throws(DeviceConfigurationError) -> Setting {
        try check(key, at: place, line: line) { () throws(ConfigValueType.BadValue) in
            Setting(try key.type.parse(text, split: split, isSource: isSource), from: origin)
        }
    }

    /// `body`'s setting, or the error naming the place, the key and what it expects.
    private func check(
        _ key: ConfigKey, at place: String, line: Int? = nil, _ body: () throws(ConfigValueType.BadValue) -> Setting
    ) throws(DeviceConfigurationError) -> Setting {
        do {
            return try body()
        } catch {
            throw DeviceConfigurationError(
                place: place, line: line, key: key.name, expected: key.expected, kind: .badValue(found: error.found))
        }
    }
}
