import CaptureUpload

extension TokenFileError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .malformed: .configuration
        case .missing: .notFound
        case .exposed: .tokenRejected
        case .unreadable: .ioError
        }
    }

    var cliMessage: String {
        switch self {
        case .exposed: description + "; chmod 600 it"
        default: description
        }
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
