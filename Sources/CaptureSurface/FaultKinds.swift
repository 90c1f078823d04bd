package import CaptureCore

extension SurfaceError: KindedError {
    package var faultKind: FaultKind {
        switch self {
        case .store(let error): error.faultKind
        case .export(let error): error.faultKind
        case .noAccelerometer, .nothingToAnalyse: .notFound
        case .unknownFormat: .badArgument
        }
    }
}
