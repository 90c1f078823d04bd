public import CaptureCore

extension CyfaceError: KindedError {
    public var faultKind: FaultKind { .badData }
}
