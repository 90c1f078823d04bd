package import CaptureSensors
import CaptureStorage

extension IndicatorState {
    /// What the LEDs show for a recorder's `status` at `now`: a problem a person must fix first
    /// (the store full of rides not delivered, a source gone, `loginGone`), then a ride standing
    /// still, recording (with or without a fix), `delivering` (an uploader at work), and armed
    /// otherwise (waiting for motion, or paused).
    package init(_ status: RecorderStatus, delivering: Bool, loginGone: Bool, now: Int64) {
        if status.ride?.state == .waitingForRoom || (status.failedSources ?? 0) > 0 || loginGone {
            self = .problem
        } else if status.ride?.state == .still {
            self = .still
        } else if status.state == .capturing, status.ride.map({ $0.state == .recording }) ?? true {
            // A live receiver says whether it has a fix; without one (a trace), a fix in the last 2 s.
            let receivers = status.sources.compactMap(\.gnss)
            let fixed =
                receivers.isEmpty ? status.lastFix.map { now - $0.timestamp <= 2000 } ?? false : receivers.contains(.fixed)
            self = fixed ? .recordingWithFix : .recordingWithoutFix
        } else {
            self = delivering ? .delivering : .armed
        }
    }
}

extension Recorder {
    /// Shows the recorder's state on its LEDs (``IndicatorLEDs``), at a flush's wake-up. An LED
    /// that cannot be written is said once in the log, and the LEDs are left alone for the rest
    /// of the run: a write that fails may have waited a second for udev, which the flushes must
    /// not wait again and again.
    func indicate() {
        guard let indicator, !indicatorFailed.load(ordering: .relaxed) else { return }
        let now = clock()
        let gone = LoginLifetime.report(loginFile: directory + "/" + LoginLifetime.fileName, now: now)?.goneReason != nil
        let delivering = ExclusiveFileLock.isHeld(path: directory + "/upload.lock")
        do {
            try indicator.show(IndicatorState(status(), delivering: delivering, loginGone: gone, now: now))
        } catch {
            indicatorFailed.store(true, ordering: .relaxed)
            recorderLog.warning("the LEDs show nothing more in this run: \(error)")
        }
    }
}
