import CaptureUpload

extension UploadSettingsError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .malformedFile, .missing, .tokenFileMalformed: .configuration
        case .invalidURL, .invalidTrustedOrigin: .usage
        case .tokenFileMissing: .notFound
        case .tokenFileExposed: .tokenRejected
        case .tokenFileUnreadable: .ioError
        }
    }

    var cliMessage: String {
        switch self {
        case .missing(let key, let searched):
            let what = key == .collectorURL ? "collector URL" : "token"
            return "no \(what): " + Self.either(searched.map(Self.advice))
        case .invalidURL: return "the collector URL must be an http or https URL, such as https://example.com/api/v4"
        case .invalidTrustedOrigin: return description + ", such as https://sessions.example.com"
        case .tokenFileExposed: return description + "; chmod 600 it"
        default: return description
        }
    }

    /// How to set a value at `origin`: `pass --url`, `set CAPTURE_UPLOAD_URL`, `put "url" in FILE`.
    private static func advice(_ origin: UploadSettings.Origin) -> String {
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

extension UploadRunFailure: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .tokenRejected: .tokenRejected
        case .incomplete, .attachmentsIncomplete: .uploadIncomplete
        }
    }

    var cliMessage: String {
        switch self {
        case .tokenRejected(let origin, let remedy):
            "the credentials from \(origin) were refused: \(remedy.advice)"
        case .incomplete(let missed, let total):
            "\(missed) of \(total) measurement(s) not uploaded (the reason is printed with each); "
                + "fix the cause and run `capture upload` again"
        case .attachmentsIncomplete(let missed, let total):
            "\(missed) of \(total) attachment(s) not uploaded (their measurements were; the reason is printed with each); "
                + "fix the cause and run `capture upload` again"
        }
    }
}
