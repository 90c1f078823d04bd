import CaptureCore

/// The documented exit codes of `capture`. The README lists the same table.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// Something unexpected; the message says what.
    case failure = 1
    /// `start` while a measurement is open; `export --format cyface` of one that is not finished.
    case alreadyOpen = 3
    /// `pause`, `resume`, `stop` or `modality` with no open measurement.
    case notOpen = 4
    /// `pause` or `modality` while the measurement is paused or interrupted.
    case notCapturing = 5
    /// `resume` while the measurement is capturing.
    case notPaused = 6
    /// Bad arguments (unknown modality, bad option value). ArgumentParser's own usage errors use it too.
    case usage = 64
    /// A malformed input file (trace or transfer file), stored values a transfer file cannot hold,
    /// or a transfer file whose ride is already stored (`import` without `--again`).
    case dataError = 65
    /// A file or measurement that does not exist.
    case notFound = 66
    /// The recorder could not be started or did not answer.
    case unavailable = 69
    /// The disk is full; nothing committed was lost.
    case diskFull = 73
    /// The database or a file could not be read or written.
    case ioError = 74
    /// `upload`: at least one measurement failed or was not found; the others were uploaded.
    case uploadIncomplete = 75
    /// The collector rejected the token (401), the issuer the refresh token or secret, a login
    /// was declined or expired, or the token file is readable by others.
    case tokenRejected = 77
    /// A bad configuration file or environment value (unknown key, bad value, unreadable or
    /// malformed file: docs/configuration.md), before anything starts; `upload`: no collector
    /// URL or token is configured, or upload.json is malformed.
    case configuration = 78

    /// One line for `--help`, and the README's table word for word (`ExitCodeTableTests` checks
    /// that; the README may add backticks). Short enough for an 80-column terminal.
    var summary: String {
        switch self {
        case .success: "success"
        case .failure: "unexpected failure (the message says what)"
        case .alreadyOpen: "a measurement is open (start, replay, delete) or unfinished (export)"
        case .notOpen: "no measurement is open (pause, resume, stop, modality)"
        case .notCapturing: "not capturing (pause while paused; pause or modality when interrupted)"
        case .notPaused: "not paused (resume while capturing)"
        case .usage: "bad arguments (unknown modality or source, bad value); delete declined"
        case .dataError: "malformed input file (trace, transfer file), or a ride already imported"
        case .notFound: "no such file, measurement or sensor"
        case .unavailable: "recorder or device unavailable"
        case .diskFull: "disk full (nothing committed was lost)"
        case .ioError: "database, file or device I/O error"
        case .uploadIncomplete: "upload: some measurements failed (the others were uploaded)"
        case .tokenRejected: "credentials refused, or token file readable by others"
        case .configuration: "bad configuration file or value; upload: no URL or token"
        }
    }

    /// The code for a library error of `kind`.
    init(_ kind: FaultKind) {
        self =
            switch kind {
            case .unexpected: .failure
            case .alreadyOpen: .alreadyOpen
            case .notOpen: .notOpen
            case .notCapturing: .notCapturing
            case .notPaused: .notPaused
            case .badArgument: .usage
            case .badData: .dataError
            case .notFound: .notFound
            case .unavailable: .unavailable
            case .diskFull: .diskFull
            case .io: .ioError
            case .incomplete: .uploadIncomplete
            case .credentials: .tokenRejected
            case .configuration: .configuration
            }
    }

    /// The EXIT CODES section of `--help`, made from the cases above.
    static let help =
        "EXIT CODES\n"
        + allCases.map { "  " + String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0) + $0.summary }
        .joined(separator: "\n")
}
