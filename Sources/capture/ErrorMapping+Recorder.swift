import CaptureRecorder

extension ControlFailure: CLIReportable {
    var exitStatus: ExitStatus {
        switch kind {
        case "notOpen": .notOpen
        case "notCapturing": .notCapturing
        case "notPaused": .notPaused
        case "alreadyStarted": .alreadyOpen
        case "badRequest": .usage
        case "diskFull": .diskFull
        default: .ioError
        }
    }
    var cliMessage: String { message }
}
