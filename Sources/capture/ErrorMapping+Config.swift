import CaptureConfig
import CaptureWiring

extension DeviceConfigurationError: CLIAdvised {
    var cliMessage: String {
        // `capture upload`'s options for the collector keep the messages they had.
        guard place.hasPrefix("-"), case .badValue(let found) = kind else { return description }
        switch key {
        case ConfigKey.collectorURL.name: return "the collector URL must be an http or https URL, such as https://example.com/api/v4"
        case ConfigKey.trustedOrigins.name:
            return "the trusted origin '\(found)' from \(place) is not an http or https URL, such as https://sessions.example.com"
        default: return description
        }
    }
}

extension CollectorSettingsError: CLIAdvised {
    var cliMessage: String {
        switch self {
        case .missing(let key, let searched):
            let what = key == .collectorURL ? "collector URL" : "token"
            return "no \(what): " + Self.either(searched.map(Self.advice))
        case .malformedUploadJSON: return description
        }
    }

    /// How to set a value at `origin`: `pass --url`, `set CAPTURE_UPLOAD_URL`, `put "url" in FILE`.
    private static func advice(_ origin: DeviceConfiguration.Origin) -> String {
        switch origin {
        case .option(let name): "pass \(name)"
        case .environment(let name): "set \(name)"
        case .file(let path, let key): "put \"\(key)\" in \(path)"
        case .builtIn: "rely on the default"
        }
    }

    /// `a, b or c`.
    private static func either(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }
}
