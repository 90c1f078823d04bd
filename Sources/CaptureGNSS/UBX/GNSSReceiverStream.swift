package import CaptureCore

/// What a ``GNSSReceiverStream`` reports.
package enum ReceiverEvent: Sendable, Equatable {
    /// A fix, or fix acquired / lost, from NMEA or UBX navigation messages.
    case gnss(GNSSEvent)
    /// A motion sample of the receiver's own IMU (UBX-ESF), on GNSS time.
    case motion(MotionSensor, MotionSample)

    /// The sample the event carries: its fix or motion sample; `nil` for fix acquired or lost.
    package var sample: Sample? {
        switch self {
        case .gnss(.fix(let fix)): .fix(fix)
        case .motion(let sensor, let value): .motion(sensor, value)
        case .gnss(.transition): nil
        }
    }
}

/// Counters of a ``GNSSReceiverStream``.
package struct GNSSReceiverStats: Sendable, Equatable {
    /// The NMEA side (text between UBX frames).
    package var nmea = NMEAStats()
    /// UBX framing.
    package var framing = UBXFramingStats()
    /// UBX frames decoded, by kind (`class << 8 | id`).
    package var decoded: [UInt16: Int] = [:]
    /// Well-framed UBX messages not decoded here, by kind.
    package var unsupported: [UInt16: Int] = [:]
    /// Well-framed UBX messages of decoded kinds with impossible lengths.
    package var malformed = 0
    /// UBX epoch assembly.
    package var assembly = UBXAssemblyStats()
    /// ESF sensor samples.
    package var sensors = UBXSensorStats()
    /// ESF-INS messages read and not stored: the module's compensated vehicle dynamics, derived
    /// from the same IMU readings capture stores from ESF-RAW (``UBXESFINS``).
    package var vehicleDynamics = 0
    /// Fixes dropped because one at the same time was already reported (a receiver sending
    /// both NMEA and UBX navigation for each epoch).
    package var duplicateFixes = 0

    /// All zero.
    package init() {}

    /// Damaged input: bad NMEA lines and sentences, bad or cut-off UBX frames, malformed messages.
    package var rejected: Int { nmea.rejected + framing.rejected + malformed }
    /// Well-formed input not used: unsupported NMEA sentence types and UBX message kinds, RTCM 3
    /// frames, ESF-MEAS readings left out because the receiver sends the same sensors in
    /// ESF-RAW, and ESF-INS messages.
    package var unused: Int {
        nmea.unsupported.values.reduce(0, +) + unsupported.values.reduce(0, +) + framing.rtcm3Frames
            + sensors.measSkippedForRaw + vehicleDynamics
    }
}

/// A GNSS receiver's byte stream, whatever it speaks: NMEA 0183 text, u-blox UBX binary, or both
/// interleaved (a u-blox receiver with both protocols enabled on one port), with `#` comment
/// lines, LF or CRLF line ends and line noise. RTCM 3 frames in it are skipped and counted.
///
/// UBX frames (checksum verified) are taken out of the stream; the text between them goes to
/// ``NMEAStream``. NAV messages become fixes (``UBXEpochAssembler``), ESF-RAW / ESF-MEAS motion
/// samples (``UBXSensorSamples``). When both protocols describe the same epoch, the first fix
/// for a time wins. Pure: fed byte chunks, no I/O.
///
/// ```swift
/// var stream = GNSSReceiverStream()
/// for event in stream.push(bytes) { … }
/// let tail = stream.finish()
/// ```
package struct GNSSReceiverStream: Sendable {
    private var splitter = UBXFrameSplitter()
    private var nmea: NMEAStream
    private var assembler: UBXEpochAssembler
    private var sensors: UBXSensorSamples
    private var counters = GNSSReceiverStats()
    /// Times of the latest fixes reported, to drop the same epoch reported twice.
    private var recentFixTimes: [Int64] = []
    /// The latest epoch time handed to ``sensors``.
    private var lastEpochTime: Int64?

    /// - Parameters:
    ///   - nmea: the NMEA pipeline's settings.
    ///   - sensors: ESF time-tag settings.
    package init(nmea: NMEAStream = NMEAStream(), sensors: UBXSensorSamples.Configuration = .init()) {
        self.nmea = nmea
        self.assembler = UBXEpochAssembler()
        self.sensors = UBXSensorSamples(configuration: sensors)
    }

    /// Counters since creation.
    package var stats: GNSSReceiverStats {
        var stats = counters
        stats.nmea = nmea.stats
        stats.framing = splitter.stats
        stats.assembly = assembler.stats
        stats.sensors = sensors.stats
        return stats
    }

    /// Whether any UBX frame has been seen.
    package var sawUBX: Bool { splitter.stats.frames > 0 }

    /// Feeds raw bytes; returns the events completed by them.
    package mutating func push(_ bytes: some Sequence<UInt8>) -> [ReceiverEvent] {
        splitter.push(bytes).flatMap { piece(ofStream: $0) }
    }

    /// Ends the input: flushes the last line and epoch.
    package mutating func finish() -> [ReceiverEvent] {
        var events = splitter.finish().flatMap { piece(ofStream: $0) }
        events += nmea.finish().flatMap { gnss($0) }
        events += navigation(assembler.finish())
        sensors.finish()
        return events
    }

    private mutating func piece(ofStream piece: UBXFrameSplitter.Piece) -> [ReceiverEvent] {
        switch piece {
        case .text(let bytes):
            return nmea.push(bytes).flatMap { gnss($0) }
        case .frame(let frame):
            let message: UBXMessage
            do {
                message = try UBXMessage(frame)
            } catch {
                switch error {
                case .unsupported(let kind): counters.unsupported[kind, default: 0] += 1
                case .tooShort, .badLength: counters.malformed += 1
                }
                return []
            }
            counters.decoded[frame.kind, default: 0] += 1
            switch message {
            case .esfRaw, .esfMeas:
                return sensors.add(message).map { .motion($0.0, $0.1) }
            case .esfINS:
                counters.vehicleDynamics += 1
                return []
            default:
                return navigation(assembler.add(message))
            }
        }
    }

    /// Events of closed UBX epochs, with the epoch time handed to the sensor timeline first
    /// (samples held back before it come out before the fix).
    private mutating func navigation(_ events: [GNSSEvent]) -> [ReceiverEvent] {
        var result: [ReceiverEvent] = []
        if let time = assembler.latestTime, time != lastEpochTime {
            lastEpochTime = time
            result += sensors.epoch(at: time).map { .motion($0.0, $0.1) }
        }
        return result + events.flatMap { gnss($0) }
    }

    private mutating func gnss(_ event: GNSSEvent) -> [ReceiverEvent] {
        if case .fix(let fix) = event {
            if recentFixTimes.contains(fix.timestamp) {
                counters.duplicateFixes += 1
                return []
            }
            recentFixTimes.append(fix.timestamp)
            if recentFixTimes.count > 16 { recentFixTimes.removeFirst() }
        }
        return [.gnss(event)]
    }
}
