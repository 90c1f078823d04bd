import CaptureCore

/// A key of the configuration file, with its environment variable: the one table that the
/// loader, `capture config` and docs/configuration.md follow.
///
/// Environment variables are `CAPTURE_` and the key in capitals with dots as underscores
/// (`upload.max_age` → `CAPTURE_UPLOAD_MAX_AGE`), except four names that are older than the
/// file: `data_dir` is `CAPTURE_HOME`, `collector.url` `CAPTURE_UPLOAD_URL`,
/// `collector.token_file` `CAPTURE_TOKEN_FILE`, `collector.trusted_origins` `CAPTURE_TRUSTED_ORIGINS`.
public enum ConfigKey: String, Sendable, CaseIterable, Hashable, Comparable {
    case dataDirectory = "data_dir"
    case logLevel = "log_level"
    case collectorURL = "collector.url"
    case tokenFile = "collector.token_file"
    case trustedOrigins = "collector.trusted_origins"
    case retryBudget = "collector.retry_budget"
    case payloadLimit = "collector.payload_limit"
    case authIssuer = "auth.issuer"
    case authClientID = "auth.client_id"
    case authClientSecretFile = "auth.client_secret_file"
    case uploadAuto = "upload.auto"
    case minWaiting = "upload.min_waiting"
    case maxAge = "upload.max_age"
    case unmeteredOnly = "upload.unmetered_only"
    case keepUploadedDays = "retention.keep_uploaded_days"
    case maxStoreSize = "retention.max_store_size"
    case dropUnsent = "retention.drop_unsent"
    case sources = "capture.sources"
    case modality = "capture.modality"
    case flushInterval = "capture.flush_interval"
    case privacyZones = "privacy.zones"

    /// The key as written in the file, dotted: `upload.max_age`.
    public var name: String { rawValue }

    /// The key's path in the file: `["upload", "max_age"]`.
    public var path: [String] { rawValue.split(separator: ".").map(String.init) }

    /// The environment variable that sets it.
    public var environmentVariable: String {
        switch self {
        case .dataDirectory: "CAPTURE_HOME"
        case .collectorURL: "CAPTURE_UPLOAD_URL"
        case .tokenFile: "CAPTURE_TOKEN_FILE"
        case .trustedOrigins: "CAPTURE_TRUSTED_ORIGINS"
        default: "CAPTURE_" + rawValue.uppercased().replacingDots()
        }
    }

    /// What a value must look like, for error messages (“expected …”).
    public var expected: String {
        switch self {
        case .dataDirectory, .tokenFile, .authClientSecretFile: "a path"
        case .authIssuer: "an http or https URL with a host, such as https://sso.example.com/realms/cyface"
        case .authClientID: "a client id, such as capture"
        case .logLevel: "one of error, warning, info, debug"
        case .collectorURL: "an http or https URL with a host, such as https://example.com/api/v4"
        case .trustedOrigins: "a list of http or https URLs (in the environment: separated by spaces or commas)"
        case .retryBudget, .maxAge: "a duration such as \(Self.durationExamples)"
        case .flushInterval: "a duration from 50ms to 1h, such as 500ms, 1s or 30s"
        case .uploadAuto, .unmeteredOnly: "true or false"
        case .minWaiting: "a whole number of measurements, at least 1"
        case .keepUploadedDays: "a whole number of days, at least 0, or forever"
        case .maxStoreSize: "a size such as 65536, 512M or 2GB, or unlimited"
        case .payloadLimit: "a size such as 100M or 1G, or unlimited"
        case .dropUnsent: "never or oldest"
        case .sources:
            "a list of source specs such as trace:PATH, iio:DEVICE, gpsd[:HOST:PORT], nmea:PATH "
                + "(in the environment: separated by commas)"
        case .modality: "a modality, one of \(Self.modalitySpellings)"
        case .privacyZones:
            "a list of {latitude, longitude, radius} with latitude −90…90, longitude −180…180 and radius in metres "
                + "above 0, at most 100000 (in the environment: LAT,LON,RADIUS separated by semicolons)"
        }
    }

    /// One line on what the key means, for `capture config --help` and the docs.
    public var meaning: String {
        switch self {
        case .dataDirectory: "where measurements are kept"
        case .logLevel: "how much goes to stderr: error, warning (the default), info or debug"
        case .collectorURL: "the Cyface collector's base URL"
        case .tokenFile: "the file holding the bearer token (mode 600); the token itself is never printed"
        case .trustedOrigins: "origins besides the collector's that may receive the token"
        case .retryBudget: "how long one measurement's upload is retried before it is marked failed"
        case .authIssuer: "the OAuth 2.0 issuer whose tokens the collector takes (`capture login`); instead of a token file"
        case .authClientID: "the client id registered at the issuer"
        case .authClientSecretFile:
            "a file holding the client secret (mode 600): tokens from the client-credentials grant, no login"
        case .payloadLimit: "the collector's largest upload (its measurement.payload.limit); a larger transfer file is skipped, not sent"
        case .uploadAuto: "deliver finished measurements without anyone typing `capture upload`"
        case .minWaiting: "`capture sync` uploads once this many measurements wait"
        case .maxAge: "… or once the oldest has waited this long"
        case .unmeteredOnly: "upload only over a connection that is not metered"
        case .keepUploadedDays: "uploaded measurements are deleted locally after this many days"
        case .maxStoreSize: "the store's size budget; uploaded measurements are pruned, oldest first, to keep it"
        case .dropUnsent: "whether unsent measurements may be dropped (oldest first, counted) when over budget"
        case .sources: "the sources `capture start` records from (empty: discover IIO sensors and gpsd)"
        case .modality: "the initial modality of a measurement"
        case .flushInterval: "time between commits; a crash loses at most this much"
        case .privacyZones: "places whose fixes never leave the device"
        }
    }

    public static func < (lhs: ConfigKey, rhs: ConfigKey) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The sections of the file and their keys; any other key is an error.
    static let sections: [String: [String]] = Dictionary(
        grouping: allCases.filter { $0.path.count == 2 }, by: { $0.path[0] }
    ).mapValues { $0.map { $0.path[1] } }

    static let durationExamples = "500ms, 1s, 30m, 6h or 7d"
    static var modalitySpellings: String { Modality.spellings }
}

extension String {
    fileprivate func replacingDots() -> String { String(map { $0 == "." ? "_" : $0 }) }
}
