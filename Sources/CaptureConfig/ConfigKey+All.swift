import CaptureCore
import Foundation

/// Every setting, declared once. Adding a key: a declaration here, its place in ``allCases``
/// (the order of `capture config`), and its row in docs/configuration.md, which
/// `ConfigDocsTests` checks against these declarations.
extension ConfigKey {
    /// Every key, in the order `capture config` lists them.
    package static let allCases: [ConfigKey] = [
        dataDirectory, logLevel,
        collectorURL, tokenFile, trustedOrigins, retryBudget, payloadLimit,
        authIssuer, authClientID, authClientSecretFile, authScope,
        uploadAuto, minWaiting, maxAge, unmeteredOnly,
        keepUploadedDays, maxStoreSize, dropUnsent,
        sources, modality, flushInterval,
        rideDetect, resumeWithin, endAfterStill, preRoll, minDistance, maxDuration,
        privacyZones,
        surfaceThresholds,
        fleetPushURL, fleetInterval, fleetUsername, fleetPasswordFile, fleetTokenFile, indicatorLEDs,
        buttonDevice, buttonKey, buttonLongPress,
        webListen, webTokenFile,
    ]

    package static let dataDirectory = ConfigKey(
        "data_dir", environment: "CAPTURE_HOME", option: "--data-dir", type: .directory,
        default: .computed(documented: "`$XDG_DATA_HOME/capture`, else `~/.local/share/capture`") { environment in
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/capture" }
                ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/capture")
        },
        expected: "a path", meaning: "where measurements are kept")

    package static let logLevel = ConfigKey(
        "log_level", environment: "CAPTURE_LOG_LEVEL", option: "--log-level", type: .choice(LogLevel.allCases.map(\.rawValue)),
        default: "warning",
        expected: "one of error, warning, info, debug",
        meaning: "how much goes to stderr: error, warning (the default), info or debug")

    // The collector.

    package static let collectorURL = ConfigKey(
        "collector.url", environment: "CAPTURE_UPLOAD_URL", option: "--url", uploadJSON: "url", type: .url, default: .unset,
        expected: "an http or https URL with a host, such as https://example.com/api/v4",
        meaning: "the Cyface collector's base URL")

    package static let tokenFile = ConfigKey(
        "collector.token_file", environment: "CAPTURE_TOKEN_FILE", option: "--token-file", uploadJSON: "tokenFile",
        type: .path, default: .unset, expected: "a path",
        meaning: "the file holding the bearer token (mode 600); the token itself is never printed")

    package static let trustedOrigins = ConfigKey(
        "collector.trusted_origins", environment: "CAPTURE_TRUSTED_ORIGINS", option: "--trust-origin",
        uploadJSON: "trustedOrigins", type: .origins, default: .empty,
        expected: "a list of http or https URLs (in the environment: separated by spaces or commas)",
        meaning: "origins besides the collector's that may receive the token")

    package static let retryBudget = ConfigKey(
        "collector.retry_budget", environment: "CAPTURE_COLLECTOR_RETRY_BUDGET", option: "--retry-budget",
        type: .duration(), default: "15m", expected: "a duration such as \(TimeSpan.examples)",
        meaning: "how long one measurement's upload is retried before it is marked failed")

    package static let payloadLimit = ConfigKey(
        "collector.payload_limit", environment: "CAPTURE_COLLECTOR_PAYLOAD_LIMIT", option: "--payload-limit",
        type: .size, default: "100M", expected: "a size such as 100M or 1G, or unlimited",
        meaning: "the collector's largest upload (its measurement.payload.limit); a larger measurement is delivered in parts within it")

    // OAuth 2.0 instead of a token file.

    package static let authIssuer = ConfigKey(
        "auth.issuer", environment: "CAPTURE_AUTH_ISSUER", type: .url, default: .unset,
        expected: "an http or https URL with a host, such as https://sso.example.com/realms/cyface",
        meaning: "the OAuth 2.0 issuer whose tokens the collector takes (`capture login`); instead of a token file")

    package static let authClientID = ConfigKey(
        "auth.client_id", environment: "CAPTURE_AUTH_CLIENT_ID", type: .word, default: .unset,
        expected: "a client id, such as capture", meaning: "the client id registered at the issuer")

    package static let authClientSecretFile = ConfigKey(
        "auth.client_secret_file", environment: "CAPTURE_AUTH_CLIENT_SECRET_FILE", type: .path, default: .unset,
        expected: "a path",
        meaning: "a file holding the client secret (mode 600): tokens from the client-credentials grant, no login")

    package static let authScope = ConfigKey(
        "auth.scope", environment: "CAPTURE_AUTH_SCOPE", type: .scope, default: "openid offline_access",
        expected: "OAuth scopes separated by spaces, such as \"openid offline_access\"",
        meaning: "the scopes `capture login` asks for; `offline_access` makes a Keycloak login outlive its SSO session")

    // When `capture sync` uploads (DeliveryPolicy).

    package static let uploadAuto = ConfigKey(
        "upload.auto", environment: "CAPTURE_UPLOAD_AUTO", type: .bool, default: "false", expected: "true or false",
        meaning: "deliver finished measurements without anyone typing `capture upload`")

    package static let minWaiting = ConfigKey(
        "upload.min_waiting", environment: "CAPTURE_UPLOAD_MIN_WAITING", type: .count(atLeast: 1), default: "1",
        expected: "a whole number of measurements, at least 1", meaning: "`capture sync` uploads once this many measurements wait")

    package static let maxAge = ConfigKey(
        "upload.max_age", environment: "CAPTURE_UPLOAD_MAX_AGE", type: .duration(), default: "6h",
        expected: "a duration such as \(TimeSpan.examples)", meaning: "… or once the oldest has waited this long")

    package static let unmeteredOnly = ConfigKey(
        "upload.unmetered_only", environment: "CAPTURE_UPLOAD_UNMETERED_ONLY", type: .bool, default: "false",
        expected: "true or false", meaning: "upload only over a connection that is not metered")

    // What is kept (RetentionPolicy).

    package static let keepUploadedDays = ConfigKey(
        "retention.keep_uploaded_days", environment: "CAPTURE_RETENTION_KEEP_UPLOADED_DAYS", type: .days, default: "30",
        expected: "a whole number of days, at least 0, or forever",
        meaning: "uploaded measurements are deleted locally after this many days")

    package static let maxStoreSize = ConfigKey(
        "retention.max_store_size", environment: "CAPTURE_RETENTION_MAX_STORE_SIZE", type: .size, default: "unlimited",
        expected: "a size such as 65536, 512M or 2GB, or unlimited",
        meaning: "the store's size budget; uploaded measurements are pruned, oldest first, to keep it")

    package static let dropUnsent = ConfigKey(
        "retention.drop_unsent", environment: "CAPTURE_RETENTION_DROP_UNSENT", type: .choice(["never", "oldest"]), default: "never",
        expected: "never or oldest",
        meaning: "whether unsent measurements may be dropped (oldest first, counted) when over budget")

    // What `capture start` records.

    package static let sources = ConfigKey(
        "capture.sources", environment: "CAPTURE_CAPTURE_SOURCES", option: "--source", type: .sources, default: .empty,
        expected: "a list of source specs such as trace:PATH, iio:DEVICE, gpsd[:HOST:PORT], nmea:PATH "
            + "(in the environment: separated by commas)",
        meaning: "the sources `capture start` records from (empty: discover IIO sensors and gpsd)")

    package static let modality = ConfigKey(
        "capture.modality", environment: "CAPTURE_CAPTURE_MODALITY", option: "--modality", type: .modality,
        default: .unset(documented: "a trace's start mark, else `UNKNOWN`"),
        expected: "a modality, one of \(Modality.spellings)", meaning: "the initial modality of a measurement")

    package static let flushInterval = ConfigKey(
        "capture.flush_interval", environment: "CAPTURE_CAPTURE_FLUSH_INTERVAL", option: "--flush-interval",
        type: .duration(in: 0.05...3600), default: "1s", expected: "a duration from 50ms to 1h, such as 500ms, 1s or 30s",
        meaning: "time between commits; a crash loses at most this much")

    // Where rides begin and end (RideSettings; docs/rides.md).

    package static let rideDetect = ConfigKey(
        "ride.detect", environment: "CAPTURE_RIDE_DETECT", type: .choice(["off", "auto"]), default: "off", expected: "off or auto",
        meaning: "auto: motion and power decide where rides begin and end; off: only commands and trace marks do")

    package static let resumeWithin = ConfigKey(
        "ride.resume_within", environment: "CAPTURE_RIDE_RESUME_WITHIN", type: .duration(), default: "2m",
        expected: "a duration such as \(TimeSpan.examples)",
        meaning: "an interrupted measurement younger than this is continued on a new track; an older one is finished")

    package static let endAfterStill = ConfigKey(
        "ride.end_after_still", environment: "CAPTURE_RIDE_END_AFTER_STILL", type: .duration(in: 1...86_400), default: "5m",
        expected: "a duration from 1s to 1d, such as 5m", meaning: "standing still this long ends the ride (ride.detect: auto)")

    package static let preRoll = ConfigKey(
        "ride.pre_roll", environment: "CAPTURE_RIDE_PRE_ROLL", type: .duration(in: 0...300), default: "10s",
        expected: "a duration from 0s to 5m, such as 10s",
        meaning: "a ride begun by motion also holds the samples of this long before the motion")

    package static let minDistance = ConfigKey(
        "ride.min_distance", environment: "CAPTURE_RIDE_MIN_DISTANCE", type: .distance, default: "50m",
        expected: "a distance such as 50m or 1.5km", meaning: "a ride begun by motion that moved less is discarded and counted")

    package static let maxDuration = ConfigKey(
        "ride.max_duration", environment: "CAPTURE_RIDE_MAX_DURATION", type: .duration(in: 60...604_800), default: "12h",
        expected: "a duration from 1m to 7d, such as 12h", meaning: "a longer ride is continued as a new measurement")

    // What never leaves the device.

    package static let privacyZones = ConfigKey(
        "privacy.zones", environment: "CAPTURE_PRIVACY_ZONES", type: .zones, default: .empty,
        expected: "a list of {latitude, longitude, radius} with latitude −90…90, longitude −180…180 and radius in metres "
            + "above 0, at most 100000 (in the environment: LAT,LON,RADIUS separated by semicolons)",
        meaning: "places whose fixes never leave the device")

    // What `capture surface` calls good and bad.

    package static let surfaceThresholds = ConfigKey(
        "surface.thresholds", environment: "CAPTURE_SURFACE_THRESHOLDS", type: .phrase,
        default: .unset(documented: "`BICYCLE=1.2,2.2,3.5;CAR=0.6,1.2,2.2;BUS=0.6,1.2,2.2;TRAIN=0.4,0.8,1.6;WALKING=3,4,5.5;*=1.2,2.2,3.5`"),
        expected: "MODALITY=A,B,C items separated by semicolons, each three ascending positive numbers (m/s²), "
            + "such as BICYCLE=1.2,2.2,3.5;CAR=0.6,1.2,2.2 (* for any other modality)",
        meaning: "upper bounds of surface classes 0, 1 and 2 per modality: the standard deviation of vertical acceleration")

    package static let fleetPushURL = ConfigKey(
        "fleet.push_url", environment: "CAPTURE_FLEET_PUSH_URL", type: .url, default: .unset,
        expected: "an http or https URL with a host, such as https://push.example.org",
        meaning: "the Prometheus Pushgateway the box pushes its heartbeat to; unset, none is pushed")

    package static let fleetInterval = ConfigKey(
        "fleet.interval", environment: "CAPTURE_FLEET_INTERVAL", type: .duration(in: 1...86_400), default: "5m",
        expected: "a duration from 1s to 1d, such as 5m", meaning: "how often the heartbeat is pushed")

    package static let fleetUsername = ConfigKey(
        "fleet.username", environment: "CAPTURE_FLEET_USERNAME", type: .word, default: .unset,
        expected: "a user name", meaning: "the Pushgateway's basic authentication user, with fleet.password_file")

    package static let fleetPasswordFile = ConfigKey(
        "fleet.password_file", environment: "CAPTURE_FLEET_PASSWORD_FILE", type: .path, default: .unset,
        expected: "a path", meaning: "a file (mode 600) holding the basic authentication password")

    package static let fleetTokenFile = ConfigKey(
        "fleet.token_file", environment: "CAPTURE_FLEET_TOKEN_FILE", type: .path, default: .unset,
        expected: "a path", meaning: "a file (mode 600) holding a bearer token for the Pushgateway")

    package static let indicatorLEDs = ConfigKey(
        "indicator.leds", environment: "CAPTURE_INDICATOR_LEDS", type: .names, default: .empty,
        expected: "a list of LED names of /sys/class/leds, such as [led0] (in the environment: separated by commas)",
        meaning: "the LEDs that show the recorder's state (docs/device.md, \"LEDs\"); empty: none")

    package static let buttonDevice = ConfigKey(
        "button.device", environment: "CAPTURE_BUTTON_DEVICE", type: .path, default: .unset,
        expected: "a path, such as /dev/input/by-path/platform-button@11-event",
        meaning: "the input device whose key is the rider's button (docs/device.md, \"The button\"); unset: none")

    package static let buttonKey = ConfigKey(
        "button.key", environment: "CAPTURE_BUTTON_KEY", type: .word, default: "any",
        expected: "a key code (28, 0x100) or name (KEY_ENTER, KEY_POWER, KEY_PAGEDOWN, BTN_0, …), or any",
        meaning: "which key of button.device is the button; any: every key")

    package static let buttonLongPress = ConfigKey(
        "button.long_press", environment: "CAPTURE_BUTTON_LONG_PRESS", type: .duration(in: 0.5...30), default: "2s",
        expected: "a duration from 500ms to 30s", meaning: "how long a press is held to end the ride under way, or begin one")

    package static let webListen = ConfigKey(
        "web.listen", environment: "CAPTURE_WEB_LISTEN", option: "--listen", type: .word, default: "0.0.0.0:8080",
        expected: "HOST:PORT, [IPv6]:PORT or :PORT, the port 0 to 65535",
        meaning: "where `capture serve` serves the page (docs/device.md, \"The page\"); 0.0.0.0: every address of the box")

    package static let webTokenFile = ConfigKey(
        "web.token_file", environment: "CAPTURE_WEB_TOKEN_FILE", type: .path, default: .unset(documented: "`<data dir>/web.token`"),
        expected: "a path", meaning: "the page's access token (made at the first `capture serve`, mode 600)")
}
