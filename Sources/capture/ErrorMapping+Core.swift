import CaptureCore

extension LifecycleError: CLIAdvised {
    var cliMessage: String { description + (Self.hint(faultKind).map { "; " + $0 } ?? "") }

    /// What to do after a refused lifecycle command, also when the recorder refused it.
    static func hint(_ kind: FaultKind) -> String? {
        switch kind {
        case .notOpen: "start one with `capture start`"
        case .notCapturing: "`capture resume` continues it"
        case .notPaused: "`capture pause` pauses it"
        default: nil
        }
    }
}
