package import CaptureCore

/// Counters kept by ``GPSDTPVMerger``.
package struct GPSDMergeStats: Sendable, Equatable {
    /// TPV reports added.
    package var reports = 0
    /// TPVs without a time (gpsd omits it when there is no fix); they cannot be grouped.
    package var reportsWithoutTime = 0
    /// Distinct epochs (times) closed.
    package var epochs = 0
    /// Epochs turned into a ``Fix``.
    package var fixes = 0
    /// Epochs without a usable fix (mode < 2 or no position).
    package var epochsWithoutFix = 0
    /// No-fix TPVs (mode < 2) for an epoch gpsd had already reported a fix for, left out.
    package var noFixAfterFix = 0

    /// All zero.
    package init() {}
}

/// Merges the several TPVs gpsd sends per epoch (same `time`) into one ``Fix`` per epoch.
///
/// gpsd builds a TPV up sentence by sentence (RMC gives a 2D report, GGA adds altitude, GSA adds
/// `epv`), so later reports of an epoch complete earlier ones; a field present in a later report
/// wins. A later report of the same time with mode < 2 does not take back a fix gpsd has already
/// reported (its clients have it): gpsd does that on receivers whose status sentence follows the
/// fix sentences (the Magellan eXplorist's `$PMGNST` in gpsd's `eXplorist210.log`). An epoch closes when a TPV with another time arrives, or at ``finish()``. TPVs without
/// `time` cannot be placed in an epoch and are only counted.
///
/// Fix acquired / lost is tracked on TPV time like the NMEA path (see ``FixLossTracker``). gpsd
/// omits `time` from most no-fix TPVs (`{"class":"TPV","mode":1}`), so a loss is only seen here
/// when a timed no-fix TPV comes ≥ 2 s after the last fix. A live adapter should also run a
/// ``FixLossTracker`` on its own clock, fed on every fix and on every report with mode < 2.
package struct GPSDTPVMerger: Sendable {
    /// Counters since creation.
    package private(set) var stats = GPSDMergeStats()
    /// The fix tracker, for its state.
    package private(set) var tracker: FixLossTracker
    private var pending: GPSDTPV?

    /// - Parameter fixLossTimeout: ms without a fix before "lost" (default 2000).
    package init(fixLossTimeout: Int64 = 2_000) {
        tracker = FixLossTracker(timeout: fixLossTimeout)
    }

    /// Adds one TPV; returns the events of the epoch it closed, if any.
    package mutating func add(_ tpv: GPSDTPV) -> [GNSSEvent] {
        stats.reports += 1
        guard let time = tpv.timestamp else {
            stats.reportsWithoutTime += 1
            return []
        }
        if let pending, pending.timestamp == time {
            if pending.fix != nil, (tpv.mode ?? 0) < 2 {
                stats.noFixAfterFix += 1
                return []
            }
            self.pending = pending.merged(with: tpv)
            return []
        }
        let events = close()
        pending = tpv
        return events
    }

    /// Closes the last epoch (end of input).
    package mutating func finish() -> [GNSSEvent] {
        close()
    }

    private mutating func close() -> [GNSSEvent] {
        guard let epoch = pending, let time = epoch.timestamp else { return [] }
        pending = nil
        stats.epochs += 1
        guard let fix = epoch.fix else {
            stats.epochsWithoutFix += 1
            return tracker.noFix(at: time).map { [.transition($0)] } ?? []
        }
        stats.fixes += 1
        var events: [GNSSEvent] = []
        if let transition = tracker.fix(at: fix.timestamp) { events.append(.transition(transition)) }
        events.append(.fix(fix))
        return events
    }
}

/// Counters for a gpsd JSON stream.
package struct GPSDStreamStats: Sendable, Equatable {
    /// Non-empty lines seen.
    package var lines = 0
    /// Decoded reports by class (`TPV`, `SKY`, …, including classes only counted).
    package var classes: [String: Int] = [:]
    /// Lines that are not JSON (e.g. echoed NMEA), skipped.
    package var notJSON = 0
    /// JSON lines rejected (not an object, no class, wrongly typed fields).
    package var invalid = 0
    /// TPV merging counters.
    package var merge = GPSDMergeStats()
    /// `IMU` and `ATT` readings turned into motion samples, or left out.
    package var motion = GPSDMotionStats()

    /// All zero.
    package init() {}
}

/// The pure gpsd client pipeline: JSON lines → reports → one ``Fix`` per epoch, and motion
/// samples from the `IMU` and `ATT` reports of receivers with their own sensors
/// (``GPSDMotionSamples``).
///
/// ```swift
/// var stream = GPSDStream()
/// socket.send(GPSDCommand.watch())
/// for line in lines { for event in stream.line(line) { … } }
/// ```
package struct GPSDStream: Sendable {
    /// The last `VERSION` seen.
    package private(set) var version: GPSDVersion?
    /// The last `ERROR` message seen.
    package private(set) var lastError: String?
    private var merger: GPSDTPVMerger
    private var motion = GPSDMotionSamples()
    private var counters = GPSDStreamStats()
    /// Satellites used and DOPs of the latest `SKY`, for the fixes closed after it.
    private var skyQuality: Fix?

    /// Counters since creation.
    package var stats: GPSDStreamStats {
        var stats = counters
        stats.merge = merger.stats
        stats.motion = motion.stats
        return stats
    }

    /// - Parameter fixLossTimeout: ms without a fix before "lost" (default 2000).
    package init(fixLossTimeout: Int64 = 2_000) {
        merger = GPSDTPVMerger(fixLossTimeout: fixLossTimeout)
    }

    /// Feeds one line; returns the fixes, fix transitions and motion samples it completed. Never
    /// fails: bad lines are counted.
    ///
    /// - Parameter receivedAt: the host time (Unix ms) the line arrived, when reading live: it
    ///   places readings that carry no time of their own between epochs.
    package mutating func line(_ text: String, receivedAt: Int64? = nil) -> [ReceiverEvent] {
        if text.allSatisfy({ $0.isWhitespace }) { return [] }
        counters.lines += 1
        let message: GPSDMessage
        do {
            message = try GPSDMessage(line: text)
        } catch {
            if error == .notJSON { counters.notJSON += 1 } else { counters.invalid += 1 }
            return []
        }
        switch message {
        case .version(let version):
            self.version = version
            counters.classes["VERSION", default: 0] += 1
        case .devices: counters.classes["DEVICES", default: 0] += 1
        case .device: counters.classes["DEVICE", default: 0] += 1
        case .watch: counters.classes["WATCH", default: 0] += 1
        case .sky(let sky):
            counters.classes["SKY", default: 0] += 1
            let used = sky.satellitesUsed ?? {
                let count = sky.satellites.filter { $0.used == true }.count
                return sky.satellites.isEmpty ? nil : count
            }()
            skyQuality = Fix(timestamp: 0, latitude: 0, longitude: 0, satellites: used, hdop: sky.hdop, vdop: sky.vdop, pdop: sky.pdop)
        case .gst: counters.classes["GST", default: 0] += 1
        case .error(let text):
            lastError = text
            counters.classes["ERROR", default: 0] += 1
        case .other(let className): counters.classes[className, default: 0] += 1
        case .motion(let report):
            counters.classes[report.className, default: 0] += 1
            return motion.add(report, receivedAt: receivedAt).map { .motion($0.0, $0.1) }
        case .tpv(let tpv):
            counters.classes["TPV", default: 0] += 1
            var events = withSkyQuality(merger.add(tpv)).map { ReceiverEvent.gnss($0) }
            if let time = tpv.timestamp {
                events += motion.epoch(at: time, receivedAt: receivedAt).map { .motion($0.0, $0.1) }
            }
            return events
        }
        return []
    }

    /// Closes the last epoch (connection closed or replay finished).
    package mutating func finish() -> [ReceiverEvent] {
        motion.finish()
        return withSkyQuality(merger.finish()).map { .gnss($0) }
    }

    /// gpsd reports satellites used and DOPs in `SKY`, not in `TPV`: a fix takes those of the
    /// latest `SKY` (gpsd sends one per epoch, usually after the epoch's TPVs and before the next
    /// epoch's, which is when the merger closes an epoch).
    private func withSkyQuality(_ events: [GNSSEvent]) -> [GNSSEvent] {
        guard let skyQuality else { return events }
        return events.map { event in
            if case .fix(let fix) = event { return .fix(fix.filling(qualityFrom: skyQuality)) }
            return event
        }
    }
}
