import CaptureCore
import CaptureStorage

extension Flush {
    /// The latest sample time in the flush (each buffer is in arrival order), or `nil`.
    var lastSampleTime: Int64? {
        let lasts = MotionSensor.allCases.compactMap { motion[$0].last?.timestamp }
            + [fixes.last?.timestamp, pressures.last?.timestamp].compactMap { $0 }
        return lasts.max()
    }
}

extension RecorderStateMachine {
    /// Whether the measurement is to be continued as a new one now: it has recorded for
    /// `ride.max_duration`, or its transfer file could pass `collector.payload_limit` with one
    /// more flush interval of what it captures now. Not for a measurement a trace drives (its
    /// marks decide), nor one that is paused.
    func seamDue(at now: Int64) -> Bool {
        guard case .recording(let id) = state, id != 0, engine.lifecycle.state.phase == .capturing,
            !sources.contains(where: \.drivesLifecycle)
        else { return false }
        if now - measurementStart >= ride.settings.maxDuration { return true }
        guard let limit = ride.settings.payloadLimit else { return false }
        let counts = rideCounts
        // The rate over the last flushes, as a margin for the next one.
        let margin = history.first.map { captured - $0.captured } ?? SampleCounts()
        return TransferSizeBound.bytes(counts + margin) >= limit
    }

    /// What the ride under way has captured.
    var rideCounts: SampleCounts { captured - ride.capturedAtBegin }

    /// Continues the measurement as a new one at a seam a flush interval back: what was taken
    /// before it ends the old one (its stop at the seam), what was taken at or after it begins
    /// the new one, so that no sample is lost or repeated. A sample still on its way (read late
    /// from a device buffer) is at most half a flush interval old, so it falls after the seam.
    mutating func continueAsNew(at now: Int64) -> [Action] {
        guard case .recording = state else { return [] }
        var before = engine.takeFlush()
        let seam = max(now - flushInterval + timeBase.offset, stagedUntil + 1, trackStart)
        let after = before.split(from: seam)
        guard let stop = try? engine.apply(.stop, at: seam) else { return [] }
        let moved = SampleCounts(after)
        let rideCaptured = rideCounts - moved
        var actions: [Action] = [
            .stage(before), .trace([.mark(.stop, at: seam)], flush: true),
            .journal(.ride(.ended(by: .size, distance: ride.travel.metres, discarded: false)), at: seam),
            .endRide(stop, captured: rideCaptured, discard: false, by: .size),
        ]
        if case .recording(let id) = state { ride.lastRide = id }
        ride.begunBy = .size
        ride.preRollFrom = seam
        let keep = ride.since
        actions += begin(at: seam, by: .size, now: now)
        // What was taken after the seam is the new measurement's first.
        for sensor in MotionSensor.allCases { for sample in after.motion[sensor] { engine.ingest(.motion(sensor, sample)) } }
        for fix in after.fixes { engine.ingest(.fix(fix)) }
        for pressure in after.pressures { engine.ingest(.pressure(pressure)) }
        ride.capturedAtBegin = captured - moved
        ride.since = ride.settings.detect == .auto ? keep : now
        return actions
    }
}

extension SampleCounts {
    /// The samples of a flush, by kind.
    init(_ flush: Flush) {
        self.init()
        for sensor in MotionSensor.allCases { self[sensor] = flush.motion[sensor].count }
        locations = flush.fixes.count
        pressure = flush.pressures.count
    }
}
