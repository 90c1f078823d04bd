public import CaptureCore

/// What an ``UploadRun`` tells its caller as it goes: enough to draw a progress bar and print a
/// line per measurement. Every method has an empty default. Called from the run's task, one
/// measurement at a time.
public protocol UploadRunObserver: Sendable {
    /// The transfer of `measurement` begins: its file of `bytes` bytes is serialised and hashed,
    /// its upload state stored, nothing sent yet.
    func transferBegins(measurement: Int64, bytes: Int64)
    /// `bytes` of the current file have been handed to the network so far (it may go back
    /// after a resume).
    func transferSent(_ bytes: Int64)
    /// The collector holds `bytes` of the current file (after a PUT, or where a resumed upload
    /// stands before this run sent anything).
    func transferAcknowledged(_ bytes: Int64)
    /// The transfer waits `milliseconds` before retrying, because of `problem`.
    func transferRetrying(after milliseconds: Int64, problem: String)
    /// A measurement's result is recorded in the store (also one that was never transferred:
    /// not found, not finished, skipped for too few locations, already uploaded).
    func finished(_ result: UploadResult)
}

extension UploadRunObserver {
    /// Does nothing.
    public func transferBegins(measurement: Int64, bytes: Int64) {}
    /// Does nothing.
    public func transferSent(_ bytes: Int64) {}
    /// Does nothing.
    public func transferAcknowledged(_ bytes: Int64) {}
    /// Does nothing.
    public func transferRetrying(after milliseconds: Int64, problem: String) {}
    /// Does nothing.
    public func finished(_ result: UploadResult) {}
}
