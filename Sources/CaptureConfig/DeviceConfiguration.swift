public import CaptureCore
public import CaptureStorage
public import CaptureUpload
import Foundation

/// How much `capture` writes to stderr besides its results.
public enum LogLevel: String, Sendable, CaseIterable, Comparable, Codable {
    case error, warning, info, debug

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Every setting of a device, each with where it came from: command-line options, then the
/// environment, then the configuration file (``ConfigFile``), then (for the collector's three
/// keys) `<data dir>/upload.json`, then the default.
///
/// ```swift
/// let device = try DeviceConfiguration.load(flags: [.modality: .init("BICYCLE", option: "--modality")])
/// print(device.flushInterval.value, "from", device.flushInterval.origin)   // 1s from default
/// ```
public struct DeviceConfiguration: Sendable {
    /// A value and where it came from.
    public typealias Setting<Value: Sendable & Equatable> = UploadSettings.Setting<Value>
    /// Where a value came from: `--url`, `$CAPTURE_UPLOAD_URL`, `"collector.url" in FILE`, `default`.
    public typealias Origin = UploadSettings.Origin

    /// A value given on the command line, as text, and the option that gave it.
    public struct Flag: Sendable, Equatable {
        public var value: String
        public var option: String
        public init(_ value: String, option: String) {
            self.value = value
            self.option = option
        }
    }

    /// A resolved value of any key, for listing (``entries``).
    public enum Value: Sendable, Equatable {
        case text(String)
        case bool(Bool)
        case int(Int?)
        case span(TimeSpan)
        case size(ByteSize?)
        case list([String])
        case zones([PrivacyZone])
        case modality(Modality?)
        case level(LogLevel)
        case drop(RetentionPolicy.UnsentDrop)
        case none

        var text: String? { if case .text(let value) = self { value } else { nil } }
        var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
        var list: [String]? { if case .list(let value) = self { value } else { nil } }
        var span: TimeSpan? { if case .span(let value) = self { value } else { nil } }
        var zones: [PrivacyZone]? { if case .zones(let value) = self { value } else { nil } }
        var level: LogLevel? { if case .level(let value) = self { value } else { nil } }
        var modality: Modality?? { if case .modality(let value) = self { .some(value) } else { nil } }
    }

    /// The configuration file that was read, if any.
    public var file: ConfigFile?
    /// Where the file was looked for when none was found (the first place of the lookup).
    public var filePlace: String
    /// Every key's value and origin.
    public var entries: [ConfigKey: Setting<Value>]
    /// The flags given, for ``uploadLayers``.
    let flags: [ConfigKey: Flag]
    /// The environment used.
    let environment: [String: String]

    /// `data_dir`, absolute and standardized.
    public var dataDirectory: Setting<String> { typed(.dataDirectory, \.text)! }
    /// `log_level`.
    public var logLevel: Setting<LogLevel> { typed(.logLevel, \.level)! }
    /// `collector.url`, if set anywhere (checked: http or https with a host).
    public var collectorURL: Setting<String>? { typed(.collectorURL, \.text) }
    /// `collector.token_file`, if set anywhere. The token is never read here.
    public var tokenFile: Setting<String>? { typed(.tokenFile, \.text) }
    /// `auth.*` as OAuth settings, if `auth.issuer` is set.
    ///
    /// - Throws: ``DeviceConfigurationError`` when `auth.issuer` is set without `auth.client_id`.
    public func oauth() throws(DeviceConfigurationError) -> OAuthSettings? {
        guard let issuer = typed(.authIssuer, \.text) else { return nil }
        guard let client = typed(.authClientID, \.text) else {
            throw DeviceConfigurationError(
                place: issuer.origin.place, line: nil, key: ConfigKey.authClientID.name,
                expected: ConfigKey.authClientID.expected, kind: .badValue(found: "nothing (auth.issuer is set)"))
        }
        return OAuthSettings(
            issuer: issuer.value, clientID: client.value, clientSecretFile: typed(.authClientSecretFile, \.text)?.value,
            dataDirectory: dataDirectory.value)
    }
    /// `collector.trusted_origins` (empty if none).
    public var trustedOrigins: Setting<[String]> { typed(.trustedOrigins, \.list)! }
    /// `collector.retry_budget`.
    public var retryBudget: Setting<TimeSpan> { typed(.retryBudget, \.span)! }
    /// `collector.payload_limit` (nil: unlimited).
    public var payloadLimit: ByteSize? {
        if case .size(let size) = entries[.payloadLimit]!.value { return size }
        return ByteSize(bytes: UploadRun.Options.collectorPayloadLimit)
    }
    /// `capture.sources` (empty: discover).
    public var sources: Setting<[String]> { typed(.sources, \.list)! }
    /// `capture.modality` (nil: a trace's start mark, else UNKNOWN).
    public var modality: Setting<Modality?> { typed(.modality, \.modality)! }
    /// `capture.flush_interval`, 50 ms to 1 h.
    public var flushInterval: Setting<TimeSpan> { typed(.flushInterval, \.span)! }
    /// `privacy.zones`.
    public var privacyZones: Setting<[PrivacyZone]> { typed(.privacyZones, \.zones)! }

    /// `upload.*` as a policy.
    public var delivery: DeliveryPolicy {
        func value(_ key: ConfigKey) -> Value { entries[key]!.value }
        guard case .bool(let automatic) = value(.uploadAuto), case .int(let minWaiting?) = value(.minWaiting),
            case .span(let maxAge) = value(.maxAge), case .bool(let unmetered) = value(.unmeteredOnly)
        else { return .standard }
        return DeliveryPolicy(automatic: automatic, minWaiting: minWaiting, maxAge: maxAge, unmeteredOnly: unmetered)
    }

    /// `retention.*` as a policy.
    public var retention: RetentionPolicy {
        func value(_ key: ConfigKey) -> Value { entries[key]!.value }
        guard case .int(let days) = value(.keepUploadedDays), case .size(let size) = value(.maxStoreSize),
            case .drop(let drop) = value(.dropUnsent)
        else { return .standard }
        return RetentionPolicy(keepUploadedDays: days, maxStoreSize: size, dropUnsent: drop)
    }

    /// Where each key came from.
    public func origin(of key: ConfigKey) -> Origin { entries[key]!.origin }

    private func typed<T: Sendable & Equatable>(_ key: ConfigKey, _ cast: KeyPath<Value, T?>) -> Setting<T>? {
        guard let entry = entries[key], let value = entry.value[keyPath: cast] else { return nil }
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
    public static func load(
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
        let resolver = Resolver(file: file, environment: environment, flags: flags, isSource: isSource)
        var entries = try resolver.resolve()
        // upload.json in the data directory: the lowest layer for the collector's keys.
        if let dataDirectory = entries[.dataDirectory]?.value.text {
            // A malformed upload.json is `capture upload`'s error (exit 78 there, through
            // ``uploadLayers()``), not every command's.
            let layer = (try? UploadSettings.Layer.uploadJSON(dataDirectory: dataDirectory)) ?? .init(values: [:], origins: [:])
            let keys: [(ConfigKey, UploadSettings.Key)] = [
                (.collectorURL, .collectorURL), (.tokenFile, .tokenFile), (.trustedOrigins, .trustedOrigins),
            ]
            for (key, uploadKey) in keys where entries[key]?.origin == .builtIn {
                guard let text = layer.values[uploadKey], !text.isEmpty, let origin = layer.origins[uploadKey] else { continue }
                entries[key] = try resolver.parse(key, text, origin: origin, place: origin.place, splitLists: true)
            }
        }
        return DeviceConfiguration(file: file, filePlace: place, entries: entries, flags: flags, environment: environment)
    }

    /// The layers for ``UploadSettings/resolve(_:)``: the options, the environment, the
    /// configuration file, then `upload.json`, so a missing URL names every place to put it.
    public func uploadLayers() throws(UploadSettingsError) -> [UploadSettings.Layer] {
        let keys: [(ConfigKey, UploadSettings.Key)] = [
            (.collectorURL, .collectorURL), (.tokenFile, .tokenFile), (.trustedOrigins, .trustedOrigins),
        ]
        var options = UploadSettings.Layer(values: [:], origins: [:])
        var fileLayer = UploadSettings.Layer(values: [:], origins: [:])
        for (key, uploadKey) in keys {
            options.origins[uploadKey] = .option(flags[key]?.option ?? Self.optionNames[key]!)
            if let flag = flags[key] { options.values[uploadKey] = flag.value }
            fileLayer.origins[uploadKey] = .file(path: file?.path ?? filePlace, key: key.name)
            switch file?.values[key] {
            case .string(let text): fileLayer.values[uploadKey] = text
            case .strings(let items) where !items.isEmpty: fileLayer.values[uploadKey] = items.joined(separator: " ")
            default: break
            }
        }
        return [options, .environment(environment), fileLayer, try .uploadJSON(dataDirectory: dataDirectory.value)]
    }

    /// The upload settings: the collector from ``uploadLayers()`` (or `layers`), and the
    /// credentials: a `--token-file` given on the command line, else OAuth 2.0 when
    /// `auth.issuer` is set anywhere, else the token file.
    public func uploadSettings(_ layers: [UploadSettings.Layer]? = nil) throws -> UploadSettings {
        let oauth = flags[.tokenFile] == nil ? try oauth() : nil
        return try UploadSettings.resolve(layers ?? uploadLayers(), oauth: oauth)
    }

    /// The command-line options of the collector's keys, for messages.
    static let optionNames: [ConfigKey: String] = [
        .collectorURL: "--url", .tokenFile: "--token-file", .trustedOrigins: "--trust-origin",
    ]
}

extension UploadSettings.Origin {
    /// The file, variable or option, for messages: `/etc/capture/config.yaml`, `$CAPTURE_HOME`.
    var place: String {
        switch self {
        case .file(let path, _): path
        default: description
        }
    }
}
