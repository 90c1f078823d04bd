package import CaptureCore
import Foundation

/// Every setting of a device, each with where it came from: command-line options, then the
/// environment, then the configuration file (``ConfigFile``), then (for the collector's three
/// keys) `<data dir>/upload.json`, then the default.
///
/// ```swift
/// let device = try DeviceConfiguration.load(flags: [.modality: .init("BICYCLE", option: "--modality")])
/// print(device.flushInterval.value, "from", device.flushInterval.origin)   // 1s from default
/// ```
package struct DeviceConfiguration: Sendable {
    /// Where a value came from (or would have come from).
    package enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// A command-line option, such as `--url`.
        case option(String)
        /// An environment variable, such as `CAPTURE_UPLOAD_URL`.
        case environment(String)
        /// A key in a file: the configuration file, or a field of `upload.json`.
        case file(path: String, key: String)
        /// Nothing set it: the default (`capture config` shows these too).
        case builtIn

        /// `--url`, `$CAPTURE_UPLOAD_URL`, `"collector.url" in /etc/capture/config.yaml` or `default`.
        package var description: String {
            switch self {
            case .option(let name): name
            case .environment(let name): "$" + name
            case .file(let path, let key): "\"\(key)\" in \(path)"
            case .builtIn: "default"
            }
        }

        /// The file, variable or option, for messages: `/etc/capture/config.yaml`, `$CAPTURE_HOME`.
        package var place: String {
            switch self {
            case .file(let path, _): path
            default: description
            }
        }
    }

    /// A value and where it came from.
    package struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
        /// The value.
        package var value: Value
        /// Where it came from.
        package var origin: Origin

        /// Creates a setting.
        package init(_ value: Value, from origin: Origin) {
            self.value = value
            self.origin = origin
        }
    }

    /// Values given on the command line, as text, and the option that gave them.
    package struct Flag: Sendable, Equatable {
        /// One value, or one for each time a repeatable option (`--trust-origin`) was given.
        package var values: [String]
        package var option: String
        package init(_ value: String, option: String) {
            self.init([value], option: option)
        }
        package init(_ values: [String], option: String) {
            self.values = values
            self.option = option
        }
    }

    /// A resolved value of any key, for listing (``entries``) and for the stages' readers.
    package typealias Value = SettingValue

    /// The configuration file that was read, if any.
    package let file: ConfigFile?
    /// Where the file was looked for when none was found (the first place of the lookup).
    package let filePlace: String
    /// Every key's value and origin.
    package let entries: [ConfigKey: Setting<Value>]
    /// The flags given (a `--token-file` given wins over `auth.issuer`).
    package let flags: [ConfigKey: Flag]
    /// `<data dir>/upload.json`, or why it could not be read: an error of ``uploadSettings()``
    /// only, not of every command.
    package let uploadJSON: Result<UploadJSON, CollectorSettingsError>

    /// `data_dir`, absolute and standardized.
    package let dataDirectory: Setting<String>
    /// `log_level`.
    package let logLevel: Setting<LogLevel>
    /// `collector.url`, if set anywhere (checked: http or https with a host).
    package let collectorURL: Setting<String>?
    /// `collector.token_file`, if set anywhere. The token is never read here.
    package let tokenFile: Setting<String>?
    /// `collector.trusted_origins` (empty if none).
    package let trustedOrigins: Setting<[String]>
    /// `collector.retry_budget`.
    package let retryBudget: Setting<TimeSpan>
    /// `collector.payload_limit` (nil: unlimited).
    package let payloadLimit: ByteSize?
    /// `capture.sources` (empty: discover).
    package let sources: Setting<[String]>
    /// `capture.modality` (nil: a trace's start mark, else UNKNOWN).
    package let modality: Setting<Modality?>
    /// `capture.flush_interval`, 50 ms to 1 h.
    package let flushInterval: Setting<TimeSpan>
    /// `privacy.zones`.
    package let privacyZones: Setting<[PrivacyZone]>

    init(
        file: ConfigFile?, filePlace: String, entries: [ConfigKey: Setting<Value>], flags: [ConfigKey: Flag],
        uploadJSON: Result<UploadJSON, CollectorSettingsError>
    ) throws(DeviceConfigurationError) {
        (self.file, self.filePlace, self.entries, self.flags, self.uploadJSON) = (file, filePlace, entries, flags, uploadJSON)
        let all = ScopedSettings(entries: entries, lines: file?.lines ?? [:], prefix: nil)
        func setting<T>(_ key: ConfigKey, _ read: (String) throws(SettingsError) -> T) throws(DeviceConfigurationError)
            -> Setting<T>
        {
            do {
                return Setting(try read(key.name), from: entries[key]?.origin ?? .builtIn)
            } catch {
                throw DeviceConfigurationError(error)
            }
        }
        func optional(_ key: ConfigKey) throws(DeviceConfigurationError) -> Setting<String>? {
            let found = try setting(key) { (name) throws(SettingsError) in try all.text(name) }
            return found.value.map { Setting($0, from: found.origin) }
        }
        dataDirectory = try setting(.dataDirectory) { (name) throws(SettingsError) in
            guard let path = try all.text(name) else { throw all.invalid(name, found: "nothing") }
            return path
        }
        logLevel = try setting(.logLevel) { (name) throws(SettingsError) in try all.choice(name) }
        collectorURL = try optional(.collectorURL)
        tokenFile = try optional(.tokenFile)
        trustedOrigins = try setting(.trustedOrigins) { (name) throws(SettingsError) in try all.list(name) }
        retryBudget = try setting(.retryBudget) { (name) throws(SettingsError) in try all.duration(name) }
        payloadLimit = try setting(.payloadLimit) { (name) throws(SettingsError) in try all.size(name) }.value
        sources = try setting(.sources) { (name) throws(SettingsError) in try all.list(name) }
        modality = try setting(.modality) { (name) throws(SettingsError) in try all.modality(name) }
        flushInterval = try setting(.flushInterval) { (name) throws(SettingsError) in try all.duration(name) }
        privacyZones = try setting(.privacyZones) { (name) throws(SettingsError) in try all.zones(name) }
    }

    /// The keys under `prefix` (`ride`, `retention`) for a stage to read its settings from.
    package func settings(under prefix: String) -> some SettingsReader {
        ScopedSettings(entries: entries, lines: file?.lines ?? [:], prefix: prefix)
    }

    /// Where each key came from.
    package func origin(of key: ConfigKey) -> Origin { entries[key]?.origin ?? .builtIn }

    /// `key`'s text and where it came from; nil when nothing sets it.
    package func text(_ key: ConfigKey) -> Setting<String>? {
        guard let entry = entries[key], case .text(let value) = entry.value else { return nil }
        return Setting(value, from: entry.origin)
    }

    /// Loads the configuration: finds and reads the file (``ConfigFile/locate(environment:systemPath:)``),
    /// then resolves every key from `flags`, `environment` (this process's if nil), the file,
    /// `upload.json` and the defaults.
    ///
    /// - Parameters:
    ///   - file: a file to read instead of looking one up (`capture config --check FILE`).
    ///   - isSource: whether a `capture.sources` entry names a known kind of source.
    /// - Throws: ``DeviceConfigurationError``, for the first bad value in any layer.
    package static func load(
        flags: [ConfigKey: Flag] = [:], environment: [String: String]? = nil, file explicitFile: String? = nil,
        systemPath: String = ConfigFile.systemPath, isSource: @escaping (String) -> Bool = { _ in true }
    ) throws(DeviceConfigurationError) -> DeviceConfiguration {
        let environment = environment ?? ProcessInfo.processInfo.environment
        var file: ConfigFile?
        let path = explicitFile ?? ConfigFile.locate(environment: environment, systemPath: systemPath)?.path
        if let path {
            // /dev/null (or any empty file) sets nothing: `CAPTURE_CONFIG=/dev/null` reads no file.
            file = try ConfigFile.read(path: path, isSource: isSource)
        }
        let place =
            file?.path
            ?? (environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")) + "/capture/config.yaml"
        var resolver = Resolver(flags: flags, environment: environment, file: file, isSource: isSource)
        // upload.json is in the data directory, so that key comes first.
        let directory = try resolver.resolve(.dataDirectory)
        guard case .text(let dataDirectory) = directory.value else {
            throw DeviceConfigurationError(
                place: directory.origin.place, key: ConfigKey.dataDirectory.name, expected: ConfigKey.dataDirectory.expected,
                kind: .badValue(found: "\(directory.value)"))
        }
        let uploadJSON = Result { () throws(CollectorSettingsError) in try UploadJSON.read(dataDirectory: dataDirectory) }
        resolver.uploadJSON = try? uploadJSON.get()
        return try DeviceConfiguration(
            file: file, filePlace: place, entries: try resolver.resolve(), flags: flags, uploadJSON: uploadJSON)
    }

    /// ``load(flags:environment:file:systemPath:isSource:)`` for the commands that reach a
    /// recorder already running (status, pause, resume, modality, stop): the recorder runs on
    /// the settings it was started with, so a configuration file broken since then must not
    /// keep anyone from stopping it. A fault in the file is returned beside the configuration
    /// loaded without that file (flags, environment and defaults; a `data_dir` set only in that
    /// file is not seen then). A bad flag or environment value still throws.
    package static func loadTolerantOfFile(
        flags: [ConfigKey: Flag] = [:], isSource: @escaping (String) -> Bool = { _ in true }
    ) throws(DeviceConfigurationError) -> (device: DeviceConfiguration, ignored: DeviceConfigurationError?) {
        do {
            return (try load(flags: flags, isSource: isSource), nil)
        } catch let error where error.isInFile {
            return (try load(flags: flags, file: "/dev/null", isSource: isSource), error)
        }
    }
}
