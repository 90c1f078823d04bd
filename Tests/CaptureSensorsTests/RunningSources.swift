import CaptureCore
import CaptureSensors

/// Closures over ``SampleSource/run(into:)`` for tests that watch one source: `shouldStop` is
/// asked every 100 ms (``StopSignal/init(polling:)``).
extension SampleSource {
    func run(
        deliver: @escaping @Sendable (Sample) -> Void, note: @escaping @Sendable (SourceNote) -> Void = { _ in },
        shouldStop: @escaping @Sendable () -> Bool
    ) throws {
        try run(
            into: ClosureSink(
                stop: StopSignal(polling: shouldStop), deliver: { samples in samples.forEach(deliver) }, note: note))
    }

    func run(
        deliverAll: @escaping @Sendable ([Sample]) -> Void, note: @escaping @Sendable (SourceNote) -> Void, stop: StopSignal
    ) throws {
        try run(into: ClosureSink(stop: stop, deliver: deliverAll, note: note))
    }

    func run(
        measurementStart: Int64, deliver: @escaping @Sendable (Sample) -> Void,
        mark: @escaping @Sendable (LifecycleCommand, Int64) -> Void, shouldStop: @escaping @Sendable () -> Bool
    ) throws {
        try run(
            into: ClosureSink(
                stop: StopSignal(polling: shouldStop), measurementStart: measurementStart,
                deliver: { samples in samples.forEach(deliver) }, mark: mark))
    }
}
