import CaptureSurface

extension SurfaceError: CLIAdvised {
    var cliMessage: String {
        switch self {
        case .store(let error): error.cliMessage
        case .export(let error): error.cliMessage
        case .noAccelerometer, .nothingToAnalyse: description + "; `capture show ID` lists what a measurement holds"
        case .unknownFormat: description
        }
    }
}
