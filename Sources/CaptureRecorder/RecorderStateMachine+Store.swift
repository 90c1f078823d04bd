public import CaptureStorage

// The store's answers: a failed action (full, busy, broken) and what is done about it.
extension RecorderStateMachine {
    /// A store action failed. A commit of what is staged (`action`: ``Action/commitStaged(patience:)``)
    /// that another process kept out waits: what it carries is durable in the flush log. A full
    /// store is first met by pruning as the retention policy allows and one more try; only when
    /// that was tried, or nothing may go, does the recording end (with what is staged committed
    /// as far as it fits; the rest waits in the flush log).
    public mutating func storeFailed(_ error: StoreError, during action: Action? = nil) -> StoreFailureDecision {
        if case .busy = error, case .commitStaged = action {
            eventsWaiting = true
            return .wait
        }
        if case .diskFull = error, canPrune, !pruning {
            pruning = true
            return .pruneAndRetry
        }
        pruning = false
        guard !isFinished else { return .stop([]) }
        return .stop([.commitWhatFits] + finish(failure: error))
    }

    /// The action tried again after pruning went through.
    public mutating func storeRecovered() {
        pruning = false
    }

    /// A commit of what is staged: a lifecycle command's waits a while for another process's
    /// transaction (``StagedCommits/lifecyclePatience``); while events wait already, a try
    /// gives way at once (``StagedCommits/patience``), so that the tries, one a flush, never
    /// keep other readers out for long (a commit waiting for its lock shuts out new readers).
    var commitStagedNow: Action {
        .commitStaged(patience: eventsWaiting ? StagedCommits.patience : StagedCommits.lifecyclePatience)
    }

    /// A ``Action/commitStaged(patience:)`` went through: no event waits in the flush log any more.
    public mutating func caughtUp() {
        eventsWaiting = false
    }
}
