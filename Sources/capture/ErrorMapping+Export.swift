import CaptureExport

extension ExportError: CLIAdvised {
    var cliMessage: String {
        switch self {
        case .store(let error): error.cliMessage
        case .transfer(let error): error.cliMessage
        case .cannotCreateDirectory, .cannotWrite, .cannotRead: description
        case .fileRequired: description + "; give -o FILE.gpkg"
        case .directoryExpected:
            description + "; pass a directory (-o DIR) for every table, or --table TABLE without -o for one on standard output"
        }
    }
}
