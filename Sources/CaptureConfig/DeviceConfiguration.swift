public import CaptureCore
public import CaptureStorage
public import CaptureUpload
public import CaptureSurface
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
    /// Where a value came from (or would have come from).
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// A command-line option, such as `--url`.
        case option(String)
        /// An environment variable, such as `CAPTURE_UPLOAD_URL`.
        case environment(String)
        /// A key in a file: the configuration file, or a field of `upload.json`.
        case file(path: String, key: String)
        /// Nothing set it: the default (`capture config` shows these too).
        case builtIn

        /// `--url`, `$CAPTURE_UPLOAD_URL`, `"collector.url" in /etc/capture/config.yaml` or `default`.
        public var description: String {
            switch self {
            case .option(let name): name
            case .environment(let name): "$" + name
            case .file(let path, let key): "\"\(key)\" in \(path)"
            case .builtIn: "default"
            }
        }

        /// The file, variable or option, for messages: `/etc/capture/config.yaml`, `$CAPTURE_HOME`.
        var place: String {
            switch self {
            case .file(let path, _): path
            default: description
            }
        }
    }

    /// A value and where it came from.
    public struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
        /// The value.
        public var value: Value
        /// Where it came from.
        public var origin: Origin

        /// Creates a setting.
        public init(_ value: Value, from origin: Origin) {
            self.value = value
            self.origin = origin
        }
    }

    /// Values given on the command line, as text, and the option that gave them.
    public struct Flag: Sendable, Equatable {
        /// One value, or one for each time a repeatable option (`--trust-origin`) was given.
        public var values: [String]
        public var option: String
        public init(_ value: String, option: String) {
            self.init([value], option: option)
        }
        public init(_ values: [String], option: String) {
            self.values = values
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
        /// A distance in metres.
        case metres(Double)
        case none

        var text: String? { if case .text(let value) = self { value } else { nil } }
        var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
        var list: [String]? { if case .list(let value) = self { value } else { nil } }
        var span: TimeSpan? { if case .span(let value) = self { value } else { nil } }
        var zones: [PrivacyZone]? { if case .zones(let value) = self { value } else { nil } }
        var level: LogLevel? { if case .level(let value) = self { value } else { nil } }
        var modality: Modality?? { if case .modality(let value) = self { .some(value) } else { nil } }
        var size: ByteSize?? { if case .size(let value) = self { .some(value) } else { nil } }
    }

    /// The configuration file that was read, if any.
    public var file: ConfigFile?
    /// Where the file was looked for when none was found (the first place of the lookup).
    public var filePlace: String
    /// Every key's value and origin.
    public var entries: [ConfigKey: Setting<Value>]
    /// The flags given (a `--token-file` given wins over `auth.issuer`).
    let flags: [ConfigKey: Flag]
    /// `<data dir>/upload.json`, or why it could not be read: an error of ``uploadSettings()``
    /// only, not of every command.
    let uploadJSON: Result<UploadJSON, CollectorSettingsError>

    /// `data_dir`, absolute and standardized.
    public var dataDirectory: Setting<String> { typed(.dataDirectory, \.text)! }
    /// `log_level`.
    public var logLevel: Setting<LogLevel> { typed(.logLevel, \.level)! }
    /// `collector.url`, if set anywhere (checked: http or https with a host).
    public var collectorURL: Setting<String>? { typed(.collectorURL, \.text) }
    /// `collector.token_file`, if set anywhere. The token is never read here.
    public var tokenFile: Setting<String>? { typed(.tokenFile, \.text) }
    /// `collector.trusted_origins` (empty if none).
    public var trustedOrigins: Setting<[String]> { typed(.trustedOrigins, \.list)! }
    /// `collector.retry_budget`.
    public var retryBudget: Setting<TimeSpan> { typed(.retryBudget, \.span)! }
    /// `collector.payload_limit` (nil: unlimited).
    public var payloadLimit: ByteSize? { entries[.payloadLimit]!.value.size! }
    /// `capture.sources` (empty: discover).
    public var sources: Setting<[String]> { typed(.sources, \.list)! }
    /// `capture.modality` (nil: a trace's start mark, else UNKNOWN).
    public var modality: Setting<Modality?> { typed(.modality, \.modality)! }
    /// `capture.flush_interval`, 50 ms to 1 h.
    public var flushInterval: Setting<TimeSpan> { typed(.flushInterval, \.span)! }
    /// `privacy.zones`.
    public var privacyZones: Setting<[PrivacyZone]> { typed(.privacyZones, \.zones)! }
    /// `surface.thresholds` over the defaults (checked when read).
    public var surfaceThresholds: SurfaceThresholds {
        typed(.surfaceThresholds, \.text).flatMap { SurfaceThresholds.parse($0.value) } ?? .standard
    }

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

    /// `ride.*` as the recorder's settings.
    public var ride: RideSettings {
        func value(_ key: ConfigKey) -> Value { entries[key]!.value }
        func milliseconds(_ key: ConfigKey) -> Int64? {
            guard case .span(let span) = value(key) else { return nil }
            return Int64((span.seconds * 1000).rounded())
        }
        guard case .text(let word) = value(.rideDetect), let detect = RideSettings.Detection(rawValue: word),
            let resumeWithin = milliseconds(.resumeWithin), let endAfterStill = milliseconds(.endAfterStill),
            let preRoll = milliseconds(.preRoll), let maxDuration = milliseconds(.maxDuration),
            case .metres(let minDistance) = value(.minDistance)
        else { return .standard }
        return RideSettings(
            detect: detect, resumeWithin: resumeWithin, endAfterStill: endAfterStill, preRoll: preRoll,
            minDistance: minDistance, maxDuration: maxDuration, payloadLimit: payloadLimit?.bytes)
    }

    /// Where each key came from.
    public func origin(of key: ConfigKey) -> Origin { entries[key]!.origin }

    func typed<T: Sendable & Equatable>(_ key: ConfigKey, _ cast: KeyPath<Value, T?>) -> Setting<T>? {
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
        var resolver = Resolver(flags: flags, environment: environment, file: file, isSource: isSource)
        // upload.json is in the data directory, so that key comes first.
        let dataDirectory = try resolver.resolve(.dataDirectory).value.text!
        let uploadJSON = Result { () throws(CollectorSettingsError) in try UploadJSON.read(dataDirectory: dataDirectory) }
        resolver.uploadJSON = try? uploadJSON.get()
        return DeviceConfiguration(
            file: file, filePlace: place, entries: try resolver.resolve(), flags: flags, uploadJSON: uploadJSON)
    }

    /// ``load(flags:environment:file:systemPath:isSource:)`` for the commands that reach a
    /// recorder already running (status, pause, resume, modality, stop): the recorder runs on
    /// the settings it was started with, so a configuration file broken since then must not
    /// keep anyone from stopping it. A fault in the file is returned beside the configuration
    /// loaded without that file (flags, environment and defaults; a `data_dir` set only in that
    /// file is not seen then). A bad flag or environment value still throws.
    public static func loadTolerantOfFile(
        flags: [ConfigKey: Flag] = [:], isSource: @escaping (String) -> Bool = { _ in true }
    ) throws(DeviceConfigurationError) -> (device: DeviceConfiguration, ignored: DeviceConfigurationError?) {
        do {
            return (try load(flags: flags, isSource: isSource), nil)
        } catch let error where error.isInFile {
            return (try load(flags: flags, file: "/dev/null", isSource: isSource), error)
        }
    }
}
