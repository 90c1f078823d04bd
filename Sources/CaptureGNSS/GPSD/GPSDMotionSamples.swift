package import CaptureCore

/// Counters kept by ``GPSDMotionSamples``.
package struct GPSDMotionStats: Sendable, Equatable {
    /// Samples handed out per sensor.
    package var samples: [MotionSensor: Int] = [:]
    /// Readings with only some axes of a sensor, left out.
    package var incomplete = 0
    /// Readings dropped because no GNSS time was known to place them on.
    package var withoutTime = 0
    /// u-blox ESF-MEAS readings left out because the receiver also sends ESF-RAW.
    package var measSkippedForRaw = 0
    /// u-blox readings gpsd reported again (a time tag not newer than one already seen), left out.
    package var repeated = 0

    /// All zero.
    package init() {}
}

/// Places the readings of gpsd's `IMU` and `ATT` reports on GNSS time, as motion samples.
///
/// A report's time is, in this order:
/// 1. its `time`, when gpsd gives one;
/// 2. for u-blox dead-reckoning modules (`msg` `UBX-ESF-RAW` or `UBX-ESF-MEAS` with a `timeTag`,
///    which gpsd sends without `time`): the sensor time tag, placed exactly as capture places the
///    module's own UBX-ESF messages (``UBXSensorSamples``: anchored at a GNSS epoch, spaced by the
///    tags, ESF-MEAS left out while ESF-RAW arrives). The report is turned back into the ESF
///    message it was decoded from (gpsd prints m/s² to 1/1024 and deg/s to 1/4096 exactly, the
///    module's own resolutions), so both paths give the same samples. gpsd reports many ESF-RAW
///    readings two to four times (each report repeats earlier time tags of its message): a
///    reading whose time tag is not newer than the last one of its kind is left out and counted,
///    unless the tag jumped back far (a receiver restart);
/// 3. otherwise the latest epoch's time plus the host time elapsed since that epoch arrived
///    (when the caller gives reception times), else the epoch's time.
/// Readings before any GNSS time is known are held (u-blox) or dropped and counted.
package struct GPSDMotionSamples: Sendable {
    private var esf = UBXSensorSamples()
    private var latest: (time: Int64, receivedAt: Int64?)?
    /// The newest u-blox time tag per message and sensors, to leave out gpsd's repeats.
    private var newestTags: [String: UInt32] = [:]
    /// How far back (ticks) a time tag may jump and still count as a repeat, not a restart.
    static let repeatWindow: Int32 = 1_000_000
    private var counters = GPSDMotionStats()

    /// Counters since creation.
    package var stats: GPSDMotionStats {
        var stats = counters
        stats.withoutTime += esf.stats.withoutTime
        stats.measSkippedForRaw = esf.stats.measSkippedForRaw
        stats.incomplete += esf.stats.incomplete
        return stats
    }

    /// An empty converter.
    package init() {}

    /// Tells the converter the GNSS time of an epoch (a TPV's `time`) and, if known, the host
    /// time it arrived at. Returns samples held back until a time was known.
    package mutating func epoch(at time: Int64, receivedAt: Int64? = nil) -> [(MotionSensor, MotionSample)] {
        guard latest?.time != time else { return [] }
        latest = (time, receivedAt)
        return counted(esf.epoch(at: time))
    }

    /// One `IMU` or `ATT` report; returns its samples (none while no GNSS time is known).
    package mutating func add(_ report: GPSDMotionReport, receivedAt: Int64? = nil) -> [(MotionSensor, MotionSample)] {
        counters.incomplete += report.incompleteSensors
        guard report.hasMotion else { return [] }
        if let timestamp = report.timestamp { return counted(report.samples(at: timestamp)) }
        if let message = Self.esfMessage(report), let tag = report.timeTag {
            let kind = "\(report.message ?? "")/\(report.acceleration != nil)/\(report.angularRate != nil)"
            if let newest = newestTags[kind] {
                let step = Int32(bitPattern: tag &- newest)
                if step <= 0 && step > -Self.repeatWindow {
                    counters.repeated += 1
                    return []
                }
            }
            newestTags[kind] = tag
            return counted(esf.add(message))
        }
        guard let latest else {
            counters.withoutTime += report.samples(at: 0).count
            return []
        }
        var time = latest.time
        if let then = latest.receivedAt, let now = receivedAt, now > then { time += now - then }
        return counted(report.samples(at: time))
    }

    /// Ends the input: u-blox readings still held (no GNSS time ever came) are counted as dropped.
    package mutating func finish() {
        esf.finish()
    }

    private mutating func counted(_ samples: [(MotionSensor, MotionSample)]) -> [(MotionSensor, MotionSample)] {
        for (sensor, _) in samples { counters.samples[sensor, default: 0] += 1 }
        return samples
    }

    /// The u-blox ESF message a report was decoded from, rebuilt from its values (u-blox data
    /// types 16–18 accelerometer x/y/z in 1/1024 m/s², 14/13/5 gyroscope x/y/z in 1/4096 deg/s).
    static func esfMessage(_ report: GPSDMotionReport) -> UBXMessage? {
        guard let tag = report.timeTag, report.magneticField == nil else { return nil }
        var data: [UBXSensorDatum] = []
        func add(_ values: [Double]?, types: [UInt32], scale: Double) {
            guard let values else { return }
            for (type, value) in zip(types, values) {
                let raw = Int32(max(-8_388_608, min(8_388_607, (value * scale).rounded())))
                data.append(UBXSensorDatum(type << 24 | UInt32(bitPattern: raw) & 0xFF_FFFF))
            }
        }
        add(report.acceleration, types: [16, 17, 18], scale: 1024)
        add(report.angularRate, types: [14, 13, 5], scale: 4096)
        switch report.message {
        case "UBX-ESF-RAW":
            return .esfRaw(UBXESFRaw(blocks: data.map { UBXESFRaw.Block(data: $0, sensorTimeTag: tag) }))
        case "UBX-ESF-MEAS":
            return .esfMeas(UBXESFMeas(timeTag: tag, providerID: 0, data: data))
        default:
            return nil
        }
    }
}
