import CaptureCore

@testable import CaptureRecorder

/// What the suites that drive the recorder's state value event by event share: its names, where
/// their time begins, and the flushes among its actions.
protocol StateMachineSuite {}

extension StateMachineSuite {
    typealias Machine = RecorderStateMachine
    typealias Action = RecorderStateMachine.Action

    /// Where their time begins, Unix ms.
    static var t0: Int64 { 1_700_000_000_000 }

    /// The flushes `actions` stage, in order: those of `stage` actions and a ride's stop
    /// (`endRide`, which stages its own).
    static func stagedFlushes(_ actions: some Collection<Action>) -> [Flush] {
        actions.compactMap {
            switch $0 {
            case .stage(let flush, _), .endRide(let flush, _, _, _): flush
            default: nil
            }
        }
    }
}
