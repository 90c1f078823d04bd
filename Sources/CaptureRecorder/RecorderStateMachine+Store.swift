package import CaptureStorage

// The store's answers: a failed action (full, busy, broken) and what is done about it.
extension RecorderStateMachine {
    /// A store action failed. A commit of what is staged (`action`: ``Action/commitStaged(patience:)``)
    /// that another process kept out waits: what it carries is durable in the flush log. A full
    /// store is met by pruning delivered rides as the retention policy allows and trying the
    /// action again, as often as a prune removes something (``pruned(removed:after:)``); the
    /// recording ends only when nothing may go (no policy, or nothing delivered is left), with
    /// what is staged committed as far as it fits (the rest waits in the flush log). Nothing
    /// unsent is pruned unless the policy says so (`drop_unsent: oldest`). With
    /// `ride.detect: auto` the recording does not end then: the recorder waits armed for room
    /// (``StoreFailureDecision/waitForRoom``, ``outOfRoom(at:)``).
    package mutating func storeFailed(_ error: StoreError, during action: Action? = nil) -> StoreFailureDecision {
        if case .busy = error, case .commitStaged = action {
            waits.events = true
            return .wait
        }
        // A ride begun with no id reserved: it begins once the store lets it (``StoreWaits/begin``).
        if case .busy = error, case .beginRide(_, _, _, nil) = action, case .recording(0) = state {
            waits.begin = action
            return .wait
        }
        if case .diskFull = error, canPrune {
            return .pruneAndRetry
        }
        return giveUp(error)
    }

    /// What a prune for room (after ``storeFailed(_:during:)`` said ``StoreFailureDecision/pruneAndRetry``)
    /// came to: with something `removed`, the failed action is tried again (and may fail and
    /// prune again: each round removes at least one ride, so it ends); with nothing removed
    /// there is no more room to make and the recording ends on `error`.
    package mutating func pruned(removed: Int, after error: StoreError) -> StoreFailureDecision {
        removed > 0 ? .retry : giveUp(error)
    }

    private mutating func giveUp(_ error: StoreError) -> StoreFailureDecision {
        guard !isFinished else { return .stop([]) }
        // With ride.detect: auto a full store is waited out armed, not an end: a restart would
        // meet the same store (and its recovery would apply what is staged with no ceiling).
        if case .diskFull = error, ride.settings.detect == .auto {
            return .waitForRoom
        }
        return .stop([.commitWhatFits] + finish(failure: error))
    }

    /// A commit of what is staged: a lifecycle command's waits a while for another process's
    /// transaction (``StagedCommits/lifecyclePatience``); while events wait already, a try
    /// gives way at once (``StagedCommits/patience``), so that the tries, one a flush, never
    /// keep other readers out for long (a commit waiting for its lock shuts out new readers).
    var commitStagedNow: Action {
        .commitStaged(patience: waits.events ? StagedCommits.patience : StagedCommits.lifecyclePatience)
    }

    /// A ``Action/commitStaged(patience:)`` went through: no event waits in the flush log any more.
    package mutating func caughtUp() {
        waits.events = false
    }
}
