import CaptureConfig
import CaptureWiring
import CaptureCore
import CaptureStorage
import CaptureUpload
import Foundation
import Testing

/// The configuration file and the layers: precedence, lookup, every error class.
@Suite struct DeviceConfigurationTests {
    /// A temporary directory with a config file in it, removed afterwards.
    final class Scratch {
        let directory: String
        init() {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-config-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }

        @discardableResult
        func write(_ text: String, to name: String = "config.yaml") -> String {
            let path = directory + "/" + name
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            return path
        }
    }

    static let full = """
        data_dir: /var/lib/capture
        log_level: info
        collector:
          url: https://collector.example/api/v4
          token_file: /etc/capture/token
          trusted_origins: [https://sessions.example]
          retry_budget: 15m
        upload: { auto: true, min_waiting: 3, max_age: 6h, unmetered_only: true }
        retention: { keep_uploaded_days: 30, max_store_size: 2GB, drop_unsent: oldest }
        capture:
          sources: [trace:/tmp/ride.trace, gpsd]
          modality: bicycle
          flush_interval: 500ms
        privacy:
          zones:
            - { latitude: 51.05, longitude: 13.73, radius: 200 }
            - latitude: 52.5
              longitude: 13.4
              radius: 150
        """

    @Test func everyKeyIsRead() throws {
        let scratch = Scratch()
        let path = scratch.write(Self.full)
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path, "HOME": scratch.directory])
        #expect(device.file?.path == path)
        #expect(device.dataDirectory.value == "/var/lib/capture")
        #expect(device.logLevel.value == .info)
        #expect(device.collectorURL?.value == "https://collector.example/api/v4")
        #expect(device.collectorURL?.origin == .file(path: path, key: "collector.url"))
        #expect(device.tokenFile?.value == "/etc/capture/token")
        #expect(device.trustedOrigins.value == ["https://sessions.example"])
        #expect(device.retryBudget.value == TimeSpan(seconds: 900))
        #expect(try device.delivery() == DeliveryPolicy(automatic: true, minWaiting: 3, maxAge: TimeSpan(seconds: 6 * 3600)!, unmeteredOnly: true))
        #expect(try device.retention() == RetentionPolicy(keepUploadedDays: 30, maxStoreSize: ByteSize(bytes: 2 << 30), dropUnsent: .oldest))
        #expect(device.sources.value == ["trace:/tmp/ride.trace", "gpsd"])
        #expect(device.modality.value == .bicycle)
        #expect(device.flushInterval.value == TimeSpan(seconds: 0.5))
        #expect(device.privacyZones.value == [
            PrivacyZone(latitude: 51.05, longitude: 13.73, radius: 200)!, PrivacyZone(latitude: 52.5, longitude: 13.4, radius: 150)!,
        ])
    }

    @Test func flagsBeatEnvironmentBeatsFileBeatsDefault() throws {
        let scratch = Scratch()
        let path = scratch.write("log_level: info\ncapture: { modality: CAR, flush_interval: 2s }\nupload: { max_age: 1h }\n")
        let environment = [
            "CAPTURE_CONFIG": path, "CAPTURE_LOG_LEVEL": "debug", "CAPTURE_CAPTURE_MODALITY": "WALKING", "HOME": scratch.directory,
        ]
        let device = try DeviceConfiguration.load(
            flags: [.logLevel: .init("error", option: "--log-level")], environment: environment)
        #expect(device.logLevel.value == .error)
        #expect(device.logLevel.origin == .option("--log-level"))
        #expect(device.modality.value == .walking)
        #expect(device.modality.origin == .environment("CAPTURE_CAPTURE_MODALITY"))
        #expect(device.flushInterval.value == TimeSpan(seconds: 2))
        #expect(device.flushInterval.origin == .file(path: path, key: "capture.flush_interval"))
        #expect(try device.delivery().maxAge == TimeSpan(seconds: 3600))
        #expect(device.retryBudget.origin == .builtIn)
        #expect(device.retryBudget.value == TimeSpan(seconds: 900))
    }

    @Test func everyKeyHasItsOwnEnvironmentVariable() {
        let names = ConfigKey.allCases.map(\.environmentVariable)
        #expect(Set(names).count == names.count)
        // `CAPTURE_` and the key in capitals with dots as underscores, but for four older names.
        let older: Set<ConfigKey> = [.dataDirectory, .collectorURL, .tokenFile, .trustedOrigins]
        for key in ConfigKey.allCases where !older.contains(key) {
            #expect(key.environmentVariable == "CAPTURE_" + key.name.uppercased().replacingOccurrences(of: ".", with: "_"))
        }
        #expect(ConfigKey.dataDirectory.environmentVariable == "CAPTURE_HOME")
        #expect(ConfigKey.collectorURL.environmentVariable == "CAPTURE_UPLOAD_URL")
        #expect(ConfigKey.tokenFile.environmentVariable == "CAPTURE_TOKEN_FILE")
        #expect(ConfigKey.trustedOrigins.environmentVariable == "CAPTURE_TRUSTED_ORIGINS")
        #expect(ConfigKey.maxAge.environmentVariable == "CAPTURE_UPLOAD_MAX_AGE")
        #expect(ConfigKey.privacyZones.environmentVariable == "CAPTURE_PRIVACY_ZONES")
    }

    @Test func environmentListsAndZones() throws {
        let device = try DeviceConfiguration.load(environment: [
            "CAPTURE_CONFIG": "/dev/null", "CAPTURE_CAPTURE_SOURCES": "trace:/a.trace, gpsd",
            "CAPTURE_PRIVACY_ZONES": "51.05,13.73,200; 52.5,13.4,150", "CAPTURE_TRUSTED_ORIGINS": "https://a.example https://b.example",
            "CAPTURE_RETENTION_MAX_STORE_SIZE": "unlimited", "CAPTURE_RETENTION_KEEP_UPLOADED_DAYS": "forever",
        ])
        #expect(device.file?.keys.isEmpty == true)
        #expect(device.sources.value == ["trace:/a.trace", "gpsd"])
        #expect(device.privacyZones.value.count == 2)
        #expect(device.trustedOrigins.value == ["https://a.example", "https://b.example"])
        #expect(try device.retention().maxStoreSize == nil)
        #expect(try device.retention().keepUploadedDays == nil)
    }

    @Test func lookupOrder() throws {
        let scratch = Scratch()
        let named = scratch.write("log_level: debug\n", to: "named.yaml")
        let xdg = scratch.write("log_level: info\n", to: "xdg/capture/config.yaml")
        let home = scratch.write("log_level: error\n", to: "home/.config/capture/config.yaml")
        let system = scratch.write("log_level: warning\n", to: "etc/capture/config.yaml")
        let xdgHome = scratch.directory + "/xdg"
        let homeDir = scratch.directory + "/home"
        func found(_ environment: [String: String]) -> String? {
            ConfigFile.locate(environment: environment, systemPath: system)?.path
        }
        #expect(found(["CAPTURE_CONFIG": named, "XDG_CONFIG_HOME": xdgHome, "HOME": homeDir]) == named)
        #expect(found(["XDG_CONFIG_HOME": xdgHome, "HOME": homeDir]) == xdg)
        #expect(found(["HOME": homeDir]) == home)
        #expect(found(["XDG_CONFIG_HOME": scratch.directory + "/none", "HOME": homeDir]) == system)
        #expect(ConfigFile.locate(environment: ["HOME": scratch.directory + "/none"], systemPath: scratch.directory + "/no.yaml") == nil)
        // $CAPTURE_CONFIG must exist: a missing one is an error, not a silent fallback.
        #expect(throws: DeviceConfigurationError.self) {
            try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": scratch.directory + "/missing.yaml"])
        }
    }

    @Test func uploadJSONIsTheLowestLayer() throws {
        let scratch = Scratch()
        scratch.write(#"{"url": "https://json.example/api", "tokenFile": "/json/token"}"#, to: "data/upload.json")
        let config = scratch.write("data_dir: \(scratch.directory)/data\ncollector: { token_file: /yaml/token }\n")
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": config])
        #expect(device.collectorURL?.value == "https://json.example/api")
        #expect(device.collectorURL?.origin == .file(path: scratch.directory + "/data/upload.json", key: "url"))
        #expect(device.tokenFile?.value == "/yaml/token")
        #expect(device.tokenFile?.origin == .file(path: config, key: "collector.token_file"))
    }

    /// Every error class: one line naming the file, the key (and its line) and what is expected.
    @Test(arguments: [
        ("colector:\n  url: https://x.example\n", "1: unknown key 'colector'", "expected the keys"),
        ("collector:\n  urll: https://x.example\n", "2: unknown key 'collector.urll'", "collector.url"),
        ("upload:\n  auto: maybe\n", "2: upload.auto: expected true or false, not 'maybe'", ""),
        ("upload:\n  min_waiting: many\n", "upload.min_waiting: expected a whole number", "'many'"),
        ("upload: { max_age: soon }\n", "upload.max_age: expected a duration such as 500ms", "'soon'"),
        ("retention: { max_store_size: 2 lots }\n", "retention.max_store_size: expected a size", "'2 lots'"),
        ("retention: { drop_unsent: newest }\n", "retention.drop_unsent: expected never or oldest", "'newest'"),
        ("capture: { modality: HOVERCRAFT }\n", "capture.modality: expected a modality, one of BICYCLE", "'HOVERCRAFT'"),
        ("capture: { flush_interval: 2h }\n", "capture.flush_interval: expected a duration from 50ms to 1h", "'2h'"),
        ("capture: { sources: [warp:/x] }\n", "capture.sources: expected a list of source specs", "'warp:/x'"),
        ("capture: { sources: gpsd }\n", "capture.sources: expected a list", "'gpsd'"),
        ("collector: { url: ftp://x.example }\n", "collector.url: expected an http or https URL", "'ftp://x.example'"),
        ("privacy:\n  zones:\n    - { latitude: 95, longitude: 13, radius: 200 }\n", "privacy.zones[0]: expected a list of {latitude, longitude, radius}", "latitude 95"),
        ("privacy:\n  zones:\n    - { latitude: 51, longitude: 13, radius: -1 }\n", "privacy.zones[0]", "radius -1"),
        ("privacy:\n  zones:\n    - { latitude: 51, longitude: 13, radiuss: 1 }\n", "unknown key 'privacy.zones[0].radiuss'", ""),
        ("log_level: [a, b]\n", "log_level: expected one of error, warning, info, debug", ""),
        ("collector: [1, 2]\n", "collector: expected a mapping", ""),
        ("collector:\n  url: \"unterminated\n", "not a YAML mapping of settings", ""),
        ("- just\n- a list\n", "the top level is not a mapping", ""),
        ("log_level: info\nlog_level: debug\n", "duplicated key", ""),
    ])
    func errorsNameFileKeyAndExpectation(text: String, fragment: String, detail: String) throws {
        let scratch = Scratch()
        let path = scratch.write(text)
        let isSource: (String) -> Bool = { ["trace", "gpsd", "iio", "nmea"].contains(String($0.prefix { $0 != ":" })) }
        do {
            _ = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path], isSource: isSource)
            Issue.record("no error for \(text)")
        } catch {
            let line = error.description
            #expect(line.contains(path), "\(line)")
            #expect(line.contains(fragment), "\(line)")
            if !detail.isEmpty { #expect(line.contains(detail), "\(line)") }
            #expect(!line.contains("\n"))
        }
    }

    /// Of two bad values, the one earlier in the file is reported (not the first in a hash order).
    @Test func theFirstBadValueInTheFileIsReported() throws {
        let scratch = Scratch()
        let path = scratch.write("capture: { modality: HOVERCRAFT }\nupload: { auto: maybe, unmetered_only: 2 }\n")
        for _ in 0..<3 {
            #expect {
                try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path])
            } throws: { error in
                (error as? DeviceConfigurationError)?.key == "capture.modality"
            }
        }
        let sameLine = scratch.write("upload: { unmetered_only: 2, auto: maybe }\n", to: "same.yaml")
        #expect {
            try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": sameLine])
        } throws: { error in
            // On one line: in the order of the keys.
            (error as? DeviceConfigurationError)?.key == "upload.auto"
        }
    }

    @Test func badEnvironmentValueNamesTheVariable() {
        #expect {
            try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": "/dev/null", "CAPTURE_UPLOAD_MAX_AGE": "soon"])
        } throws: { error in
            (error as? DeviceConfigurationError)?.description
                == "$CAPTURE_UPLOAD_MAX_AGE: upload.max_age: expected a duration such as 500ms, 1s, 30m, 6h or 7d, not 'soon'"
        }
    }

    @Test func unreadableFile() throws {
        let scratch = Scratch()
        let path = scratch.write("log_level: info\n")
        chmod(path, 0)
        defer { chmod(path, 0o600) }
        // root reads anything: then the directory case stands in for an unreadable file.
        let target = getuid() == 0 ? scratch.directory : path
        #expect {
            try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": target])
        } throws: { error in
            let text = (error as? DeviceConfigurationError)?.description ?? ""
            return text.hasPrefix("cannot read the configuration file \(target): ")
        }
    }

    /// The declared defaults are what the libraries call standard.
    @Test func defaultsAreTheLibrariesStandards() throws {
        let scratch = Scratch()
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": "/dev/null", "HOME": scratch.directory])
        for key in ConfigKey.allCases { #expect(device.origin(of: key) == .builtIn, "\(key)") }
        #expect(device.dataDirectory.value == scratch.directory + "/.local/share/capture")
        #expect(try device.delivery() == .standard)
        #expect(try device.retention() == .standard)
        #expect(device.payloadLimit?.bytes == UploadRun.Options.collectorPayloadLimit)
        #expect(device.retryBudget.value == TimeSpan(seconds: 900))
        #expect(device.flushInterval.value == TimeSpan(seconds: 1))
        #expect(device.logLevel.value == .warning)
        #expect(device.modality.value == nil)
        #expect(device.collectorURL == nil && device.tokenFile == nil)
        #expect(device.sources.value.isEmpty && device.trustedOrigins.value.isEmpty && device.privacyZones.value.isEmpty)
    }

    @Test func emptyAndNullValuesSetNothing() throws {
        let scratch = Scratch()
        let path = scratch.write("# nothing yet\ncollector:\n  url:\n  token_file: ~\nupload:\n")
        let device = try DeviceConfiguration.load(environment: ["CAPTURE_CONFIG": path, "HOME": scratch.directory])
        #expect(device.collectorURL == nil)
        #expect(device.tokenFile == nil)
        #expect(try device.delivery() == .standard)
    }
}
