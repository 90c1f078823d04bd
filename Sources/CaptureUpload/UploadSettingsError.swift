/// Why the upload settings could not be resolved. Each case describes the fault; the command
/// line adds what to do about it.
public enum UploadSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A settings file exists but cannot be parsed.
    case malformedFile(path: String)
    /// No layer has a value for the key; `searched` lists every place looked in, in order.
    case missing(UploadSettings.Key, searched: [UploadSettings.Origin])
    /// The collector URL is not an http or https URL with a host.
    case invalidURL(String, origin: UploadSettings.Origin)
    /// A trusted origin is not an http or https URL with a host.
    case invalidTrustedOrigin(String, origin: UploadSettings.Origin)
    /// The token file cannot be looked at (`stat` failed: missing, no permission on a directory…).
    case tokenFileMissing(path: String, reason: String)
    /// The token file may be read by group or others; `mode` holds its permission bits.
    case tokenFileExposed(path: String, mode: UInt32)
    /// The token file exists but its bytes cannot be read.
    case tokenFileUnreadable(path: String)
    /// The token file does not hold exactly one token on one line.
    case tokenFileMalformed(path: String)

    /// One line naming the fault.
    public var description: String {
        switch self {
        case .malformedFile(let path):
            "\(path) is not valid JSON with string fields url and tokenFile and an array of strings trustedOrigins"
        case .missing(let key, let searched):
            "no \(key == .collectorURL ? "collector URL" : "token file") in "
                + searched.map(\.description).joined(separator: ", ")
        case .invalidURL(_, let origin): "the collector URL from \(origin) is not an http or https URL"
        case .invalidTrustedOrigin(let text, let origin):
            "the trusted origin '\(text)' from \(origin) is not an http or https URL"
        case .tokenFileMissing(let path, let reason): "cannot read the token file \(path): \(reason)"
        case .tokenFileExposed(let path, let mode):
            "the token file \(path) is readable by group or others (mode \(String(mode, radix: 8)))"
        case .tokenFileUnreadable(let path): "cannot read the token file \(path)"
        case .tokenFileMalformed(let path): "the token file \(path) must hold one token on one line"
        }
    }
}
