
extension LifecycleError: KindedError {
    public var faultKind: FaultKind {
        switch self {
        case .alreadyStarted: .alreadyOpen
        case .notOpen: .notOpen
        case .notCapturing: .notCapturing
        case .notPaused: .notPaused
        }
    }
}

