import CaptureSurface

extension SurfaceError: CLIReportable {
    var exitStatus: ExitStatus {
        switch self {
        case .store(let error): error.exitStatus
        case .export(let error): error.exitStatus
        case .noAccelerometer, .nothingToAnalyse: .notFound
        case .unknownFormat: .usage
        }
    }
    var cliMessage: String {
        switch self {
        case .store(let error): error.cliMessage
        case .export(let error): error.cliMessage
        case .noAccelerometer, .nothingToAnalyse: description + "; `capture show ID` lists what a measurement holds"
        case .unknownFormat: description
        }
    }
}
