package import CaptureCore

/// Counters kept by ``UBXSensorSamples``.
package struct UBXSensorStats: Sendable, Equatable {
    /// Accelerometer samples (x, y, z complete) handed out.
    package var accelerometer = 0
    /// Gyroscope samples handed out.
    package var gyroscope = 0
    /// ESF-MEAS messages whose IMU values were left out because the receiver also sends ESF-RAW
    /// (the same sensors, at their full rate).
    package var measSkippedForRaw = 0
    /// Samples with an axis missing, left out.
    package var incomplete = 0
    /// Samples dropped because no GNSS time was known to place them on (end of input before
    /// the first epoch, or more held back than ``UBXSensorSamples/maximumHeldMessages``).
    package var withoutTime = 0

    /// All zero.
    package init() {}
}

/// Turns UBX-ESF-RAW and UBX-ESF-MEAS messages (the accelerometer and gyroscope of a u-blox
/// dead-reckoning module, e.g. NEO-M8U/M8L, ZED-F9R) into motion samples on GNSS time.
///
/// Units: accelerometer m/s², gyroscope rad/s (see ``UBXSensorDatum``). Axes are the module's.
///
/// Time: the messages carry sensor time tags, not GNSS time. Each stream (RAW, MEAS) is anchored
/// once: the first of its messages after the first GNSS epoch with a known time is placed at that
/// epoch's time (its sensor reading is at most one output interval, about 100 ms, away from it);
/// later samples follow by their time-tag difference, so the samples' spacing is the sensor's
/// own. Messages that arrive before any GNSS time is known are held back (up to
/// ``maximumHeldMessages``) and placed backwards from the anchor. If the time tags jump (a
/// receiver restart), the stream is anchored again at the next epoch.
///
/// Time-tag units: ESF-MEAS from a module's internal IMU are tagged in ms (ZED-F9R integration
/// manual, "UBX-ESF-MEAS time tagging configuration": default resolution 1 ms). The ESF-RAW
/// sensor time tag's unit is not stated in the u-blox 8 specification; in the NEO-M8U log of
/// gpsd's regression suite it runs at 25.6 ticks per ms against the MEAS ms tags (39.0625 µs
/// per tick, 256 ticks per 10 ms sample), which is the default here.
///
/// When both RAW and MEAS are sent, only RAW is used (MEAS repeats the same sensors at a lower
/// rate); MEAS are used while no RAW has been seen.
package struct UBXSensorSamples: Sendable {
    /// Tunables.
    package struct Configuration: Sendable, Equatable {
        /// Length of one ESF-RAW time-tag tick, ms.
        package var rawTickMilliseconds: Double
        /// Length of one ESF-MEAS time-tag tick, ms.
        package var measTickMilliseconds: Double
        /// How far (ms) a stream's tag-derived time may drift from the epoch time it is next
        /// compared with before it is anchored again.
        package var reanchorThreshold: Double

        /// - Parameters:
        ///   - rawTickMilliseconds: default 1/25.6 ms.
        ///   - measTickMilliseconds: default 1 ms.
        ///   - reanchorThreshold: default 2000 ms.
        package init(rawTickMilliseconds: Double = 1 / 25.6, measTickMilliseconds: Double = 1, reanchorThreshold: Double = 2_000) {
            self.rawTickMilliseconds = rawTickMilliseconds
            self.measTickMilliseconds = measTickMilliseconds
            self.reanchorThreshold = reanchorThreshold
        }
    }

    /// Messages held back while no GNSS time is known.
    package static let maximumHeldMessages = 600

    /// The tunables in use.
    package let configuration: Configuration
    /// Counters since creation.
    package private(set) var stats = UBXSensorStats()

    /// One sensor clock mapped onto Unix ms.
    struct Timeline: Sendable {
        let tick: Double
        var anchorTag: UInt32
        var anchorTime: Double
        /// Ticks from the anchor to `lastTag`, accumulated across 32-bit wraps.
        var lastTag: UInt32
        var lastTicks: Int64

        init(tick: Double, tag: UInt32, time: Int64) {
            self.tick = tick
            anchorTag = tag
            anchorTime = Double(time)
            lastTag = tag
            lastTicks = 0
        }

        /// Unix ms of `tag` (a tag near the last one, before or after it).
        mutating func time(of tag: UInt32) -> Int64 {
            let step = Int64(Int32(bitPattern: tag &- lastTag))
            let ticks = lastTicks + step
            if step > 0 {
                lastTag = tag
                lastTicks = ticks
            }
            return Int64((anchorTime + Double(ticks) * tick).rounded())
        }

        /// Unix ms of `tag` without moving the timeline.
        func peek(_ tag: UInt32) -> Double {
            anchorTime + Double(lastTicks + Int64(Int32(bitPattern: tag &- lastTag))) * tick
        }
    }

    private var raw: Timeline?
    private var meas: Timeline?
    private var sawRaw = false
    private var held: [UBXMessage] = []
    /// The latest epoch time not yet used to anchor or check each timeline.
    private var rawCheck: Int64?
    private var measCheck: Int64?
    private var latestEpoch: Int64?

    /// A converter with the given tunables.
    package init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Tells the converter a GNSS epoch's Unix time (ms). Returns samples of messages held back
    /// until now.
    package mutating func epoch(at time: Int64) -> [(MotionSensor, MotionSample)] {
        let first = latestEpoch == nil
        latestEpoch = time
        rawCheck = time
        measCheck = time
        guard first, !held.isEmpty else { return [] }
        // The held messages arrived before this epoch's messages: anchor the last of each
        // stream at the epoch's time and place the others backwards from it.
        let messages = held
        held.removeAll()
        if let last = messages.last(where: { if case .esfRaw = $0 { true } else { false } }), case .esfRaw(let m) = last,
            let tag = m.blocks.last?.sensorTimeTag
        {
            raw = Timeline(tick: configuration.rawTickMilliseconds, tag: tag, time: time)
        }
        if let last = messages.last(where: { if case .esfMeas = $0 { true } else { false } }), case .esfMeas(let m) = last {
            meas = Timeline(tick: configuration.measTickMilliseconds, tag: m.timeTag, time: time)
        }
        if raw != nil { rawCheck = nil }
        if meas != nil { measCheck = nil }
        return messages.flatMap { convert($0) }
    }

    /// Adds one ESF message; returns its samples (none while no GNSS time is known).
    package mutating func add(_ message: UBXMessage) -> [(MotionSensor, MotionSample)] {
        switch message {
        case .esfRaw, .esfMeas: break
        default: return []
        }
        if case .esfRaw = message { sawRaw = true }
        guard latestEpoch != nil else {
            if held.count >= Self.maximumHeldMessages {
                stats.withoutTime += Self.sampleCount(held.removeFirst())
            }
            held.append(message)
            return []
        }
        // The first message of a stream after an epoch: anchor the stream, or anchor it again
        // if its time tags no longer agree with GNSS time.
        switch message {
        case .esfRaw(let m):
            if let check = rawCheck, let tag = m.blocks.first?.sensorTimeTag {
                if raw.map({ abs($0.peek(tag) - Double(check)) > configuration.reanchorThreshold }) ?? true {
                    raw = Timeline(tick: configuration.rawTickMilliseconds, tag: tag, time: check)
                }
                rawCheck = nil
            }
        case .esfMeas(let m):
            if let check = measCheck {
                if meas.map({ abs($0.peek(m.timeTag) - Double(check)) > configuration.reanchorThreshold }) ?? true {
                    meas = Timeline(tick: configuration.measTickMilliseconds, tag: m.timeTag, time: check)
                }
                measCheck = nil
            }
        default: break
        }
        return convert(message)
    }

    /// Ends the input: messages still held (no GNSS time ever came) are counted as dropped.
    package mutating func finish() {
        for message in held { stats.withoutTime += Self.sampleCount(message) }
        held.removeAll()
    }

    private static func sampleCount(_ message: UBXMessage) -> Int {
        switch message {
        case .esfRaw(let m): Set(m.blocks.filter { $0.data.motion != nil }.map(\.sensorTimeTag)).count
        case .esfMeas(let m): m.data.contains { $0.motion != nil } ? 1 : 0
        default: 0
        }
    }

    private mutating func convert(_ message: UBXMessage) -> [(MotionSensor, MotionSample)] {
        switch message {
        case .esfRaw(let m):
            guard raw != nil else { return [] }
            // Group the blocks by time tag, in order of appearance.
            var order: [UInt32] = []
            var groups: [UInt32: [UBXSensorDatum]] = [:]
            for block in m.blocks where block.data.motion != nil {
                if groups[block.sensorTimeTag] == nil { order.append(block.sensorTimeTag) }
                groups[block.sensorTimeTag, default: []].append(block.data)
            }
            return order.flatMap { tag in samples(groups[tag]!, at: raw!.time(of: tag)) }
        case .esfMeas(let m):
            guard m.data.contains(where: { $0.motion != nil }) else { return [] }
            if sawRaw {
                stats.measSkippedForRaw += 1
                return []
            }
            guard meas != nil else { return [] }
            return samples(m.data, at: meas!.time(of: m.timeTag))
        default:
            return []
        }
    }

    private mutating func samples(_ data: [UBXSensorDatum], at time: Int64) -> [(MotionSensor, MotionSample)] {
        var accel: [Double?] = [nil, nil, nil]
        var gyro: [Double?] = [nil, nil, nil]
        for datum in data {
            guard let (sensor, axis, value) = datum.motion else { continue }
            if sensor == .accelerometer { accel[axis] = value } else { gyro[axis] = value }
        }
        var result: [(MotionSensor, MotionSample)] = []
        for (sensor, axes) in [(MotionSensor.accelerometer, accel), (.gyroscope, gyro)] {
            let present = axes.compactMap { $0 }
            if present.count == 3 {
                result.append((sensor, MotionSample(timestamp: time, x: present[0], y: present[1], z: present[2])))
                if sensor == .accelerometer { stats.accelerometer += 1 } else { stats.gyroscope += 1 }
            } else if !present.isEmpty {
                stats.incomplete += 1
            }
        }
        return result
    }
}
