/// Why the collector's settings (``DeviceConfiguration/uploadSettings()``) cannot be given.
/// Each case describes the fault; the command line adds what to do about it.
package enum CollectorSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `<data dir>/upload.json` exists but is not what it must be.
    case malformedUploadJSON(path: String)
    /// Nothing sets `key` (``ConfigKey/collectorURL`` or ``ConfigKey/tokenFile``); `searched`
    /// lists every place looked in, in order.
    case missing(ConfigKey, searched: [DeviceConfiguration.Origin])

    /// One line naming the fault.
    package var description: String {
        switch self {
        case .malformedUploadJSON(let path):
            "\(path) is not valid JSON with string fields url and tokenFile and an array of strings trustedOrigins"
        case .missing(let key, let searched):
            "no \(key == .collectorURL ? "collector URL" : "token file") in "
                + searched.map(\.description).joined(separator: ", ")
        }
    }
}
