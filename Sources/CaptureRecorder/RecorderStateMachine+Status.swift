import CaptureCore
package import CaptureStorage

extension RecorderStateMachine {
    // MARK: - Status

    /// What `capture status` shows, at `now`. The driver fills in what it alone knows (pid,
    /// staged counts, the trace's path, when it started).
    package func status(at now: Int64) -> RecorderStatus {
        let oldest = history.first
        let kinds: [(String, (SampleCounts) -> Int)] = [
            ("acc", \.accelerometer), ("gyr", \.gyroscope), ("mag", \.magnetometer), ("prs", \.pressure), ("fix", \.locations),
        ]
        let sensors = kinds.map { kind, count in
            var rate = 0.0
            if let oldest, now > oldest.time {
                rate = Double(count(captured) - count(oldest.captured)) * 1000 / Double(now - oldest.time)
            }
            return RecorderStatus.SensorRate(sensor: kind, captured: count(captured), rate: (rate * 10).rounded() / 10)
        }
        return RecorderStatus(
            pid: 0, measurement: measurement ?? 0, state: engine.lifecycle.state.phase,
            track: engine.lifecycle.state.track, modality: engine.lifecycle.modality,
            flushIntervalMs: flushInterval, startedAt: 0, sources: sourceStates, sensors: sensors,
            lastFix: lastFix, droppedWhilePaused: engine.droppedWhileNotCapturing + droppedBeforeTrack,
            rejectedUnstorable: engine.rejectedUnstorable, pendingSamples: engine.pendingSamples,
            failedSources: sourceStates.filter { $0.state == .failed }.count,
            lostSamples: sourceStates.reduce(0) { $0 + ($1.lost ?? 0) }, recordingTrace: nil,
            clock: timeBase.report,
            staged: nil, ride: rideStatus, eventsWaiting: eventsWaiting ? true : nil)
    }
}
