import CaptureUpload

extension TokenFileError: CLIAdvised {
    var cliMessage: String {
        switch self {
        case .exposed: description + "; chmod 600 it"
        default: description
        }
    }
}

extension UploadRunFailure: CLIAdvised {
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
