/// The documented exit codes of `capture` (sysexits.h where one fits), each with its line in
/// ``summary``: what a ``FaultKind`` ends a command with, for every front end (the command line,
/// a unit's `RestartPreventExitStatus`). The README lists the same table.
public enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case alreadyOpen = 3
    case notOpen = 4
    case notCapturing = 5
    case notPaused = 6
    case usage = 64
    case dataError = 65
    case notFound = 66
    case unavailable = 69
    case diskFull = 73
    case ioError = 74
    case uploadIncomplete = 75
    case tokenRejected = 77
    case configuration = 78

    /// One line for `--help`, and the README's table word for word (`ExitCodeTableTests` checks
    /// that; the README may add backticks). Short enough for an 80-column terminal.
    public var summary: String {
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
    public init(_ kind: FaultKind) {
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
    public static let help =
        "EXIT CODES\n"
        + allCases.map { "  " + String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0) + $0.summary }
        .joined(separator: "\n")
}
