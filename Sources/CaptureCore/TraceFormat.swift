/// The native trace format: line-oriented text, one sample or lifecycle mark per line.
///
/// ```
/// #capture-trace v1
/// # anything after '#' is a comment
/// start 1781424000000 BICYCLE
/// acc 1781424000000 0.123 -0.045 9.807
/// gyr 1781424000003 0.0012 -0.0003 0.0101
/// mag 1781424000007 19.25 -2.10 -44.80
/// prs 1781424000000 1003.214
/// fix 1781424000000 51.0504000 13.7373000 165.2 4.1 6.0 5.12 87.4
/// pause 1781424240000
/// resume 1781424300000
/// modality 1781424420000 WALKING
/// stop 1781424600000
/// ```
///
/// Fields are separated by spaces or tabs. Timestamps are Unix milliseconds (integers ≥ 0).
/// `acc` is m/s² (gravity included), `gyr` rad/s, `mag` µT, `prs` hPa. `fix` is latitude and
/// longitude in degrees (WGS-84), then altitude (m above the ellipsoid), horizontal and vertical
/// accuracy (m), speed (m/s) and course (degrees from true north); each of those six may be `-`
/// for unknown. `docs/trace-format.md` is the full description.
public enum TraceFormat {
    /// The first line of every trace.
    public static let magic = "#capture-trace v1"
}

/// One meaningful line of a trace.
public enum TraceRecord: Sendable, Equatable {
    case sample(Sample)
    /// A lifecycle mark (`start`, `pause`, `resume`, `modality`, `stop`) at a time.
    case mark(LifecycleCommand, at: Int64)

    /// Unix time in milliseconds.
    public var timestamp: Int64 {
        switch self {
        case .sample(let sample): sample.timestamp
        case .mark(_, let time): time
        }
    }
}

/// A malformed trace line: where, and what was expected there.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// What the parser expected, e.g. "a number for the y axis".
    public var expected: String
    /// The offending text, shortened.
    public var found: String

    public init(line: Int, expected: String, found: String) {
        self.line = line
        self.expected = expected
        self.found = found
    }

    public var description: String {
        found.isEmpty ? "line \(line): expected \(expected)" : "line \(line): expected \(expected), found '\(found)'"
    }
}

/// Parses trace lines. Byte-level and allocation-free on the sample path, so that replaying a
/// one-hour 100 Hz ride is limited by storage, not by parsing.
public struct TraceParser: Sendable {
    private var sawMagic = false

    public init() {}

    /// Parses one line (without its line ending; a trailing `\r` is ignored).
    ///
    /// Returns `nil` for blank lines and comments. The first line must be ``TraceFormat/magic``.
    public mutating func parse(line raw: UnsafeBufferPointer<UInt8>, number: Int) throws(TraceError) -> TraceRecord? {
        var end = raw.count
        while end > 0, raw[end - 1] == UInt8(ascii: "\r") || raw[end - 1] == UInt8(ascii: " ")
            || raw[end - 1] == UInt8(ascii: "\t")
        {
            end -= 1
        }
        let line = UnsafeBufferPointer(rebasing: raw[0..<end])
        if !sawMagic {
            guard Self.equals(line, TraceFormat.magic) else {
                throw TraceError(
                    line: number, expected: "'\(TraceFormat.magic)' as the first line (not a capture trace)",
                    found: Self.excerpt(line))
            }
            sawMagic = true
            return nil
        }
        if line.isEmpty || line[0] == UInt8(ascii: "#") { return nil }
        var cursor = Cursor(bytes: line, line: number)
        let keyword = cursor.word()
        let record: TraceRecord
        switch Self.keyword(keyword) {
        case .motion(let sensor):
            let time = try cursor.timestamp()
            let x = try cursor.number("a number for the x axis (\(sensor.unit))")
            let y = try cursor.number("a number for the y axis (\(sensor.unit))")
            let z = try cursor.number("a number for the z axis (\(sensor.unit))")
            record = .sample(.motion(sensor, MotionSample(timestamp: time, x: x, y: y, z: z)))
        case .pressure:
            let time = try cursor.timestamp()
            let hPa = try cursor.number("the pressure in hPa")
            guard hPa > 0 else { throw cursor.error("a positive pressure in hPa") }
            record = .sample(.pressure(PressureSample(timestamp: time, hectopascals: hPa)))
        case .fix:
            let time = try cursor.timestamp()
            let lat = try cursor.number("the latitude in degrees")
            guard (-90...90).contains(lat) else { throw cursor.error("a latitude between -90 and 90") }
            let lon = try cursor.number("the longitude in degrees")
            guard (-180...180).contains(lon) else { throw cursor.error("a longitude between -180 and 180") }
            let alt = try cursor.optionalNumber("the altitude in m or '-'")
            let hacc = try cursor.optionalNumber("the horizontal accuracy in m or '-'")
            let vacc = try cursor.optionalNumber("the vertical accuracy in m or '-'")
            let speed = try cursor.optionalNumber("the speed in m/s or '-'")
            let course = try cursor.optionalNumber("the course in degrees or '-'")
            var fix = Fix(
                timestamp: time, latitude: lat, longitude: lon, altitude: alt, horizontalAccuracy: hacc,
                verticalAccuracy: vacc, speed: speed, course: course)
            if !cursor.atLineEnd {
                // Optional fix quality: satellites hdop vdop pdop mode (2d/3d), each '-' for unknown.
                let satellites = try cursor.optionalNumber("the number of satellites used or '-'")
                guard satellites.map({ $0 >= 0 && $0 <= 1000 && $0 == $0.rounded() }) ?? true else {
                    throw cursor.error("a whole number of satellites used")
                }
                fix.satellites = satellites.map { Int($0) }
                fix.hdop = try cursor.optionalNumber("the HDOP or '-'")
                fix.vdop = try cursor.optionalNumber("the VDOP or '-'")
                fix.pdop = try cursor.optionalNumber("the PDOP or '-'")
                let mode = cursor.word()
                let spelling = String(decoding: mode, as: UTF8.self)
                if spelling != "-" {
                    guard let value = FixMode(spelling: spelling) else { throw cursor.error("the fix mode (2d, 3d or '-')", found: mode) }
                    fix.mode = value
                }
            }
            record = .sample(.fix(fix))
        case .start:
            let time = try cursor.timestamp()
            record = .mark(.start(try cursor.modality()), at: time)
        case .modality:
            let time = try cursor.timestamp()
            record = .mark(.modality(try cursor.modality()), at: time)
        case .pause: record = .mark(.pause, at: try cursor.timestamp())
        case .resume: record = .mark(.resume, at: try cursor.timestamp())
        case .stop: record = .mark(.stop, at: try cursor.timestamp())
        case nil:
            throw TraceError(
                line: number, expected: "a record kind (acc, gyr, mag, prs, fix, start, pause, resume, modality, stop)",
                found: Self.excerpt(keyword))
        }
        try cursor.end()
        return record
    }

    private enum Keyword { case motion(MotionSensor), pressure, fix, start, pause, resume, modality, stop }

    private static func keyword(_ word: UnsafeBufferPointer<UInt8>) -> Keyword? {
        if word.count == 3 {
            switch (word[0], word[1], word[2]) {
            case (0x61, 0x63, 0x63): return .motion(.accelerometer)  // acc
            case (0x67, 0x79, 0x72): return .motion(.gyroscope)  // gyr
            case (0x6D, 0x61, 0x67): return .motion(.magnetometer)  // mag
            case (0x70, 0x72, 0x73): return .pressure  // prs
            case (0x66, 0x69, 0x78): return .fix  // fix
            default: return nil
            }
        }
        if equals(word, "start") { return .start }
        if equals(word, "pause") { return .pause }
        if equals(word, "resume") { return .resume }
        if equals(word, "modality") { return .modality }
        if equals(word, "stop") { return .stop }
        return nil
    }

    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.elementsEqual(bytes) }
    }

    /// At most 40 bytes of `bytes` for a message, control characters shown as `\u{…}`, so that
    /// binary garbage never breaks the one-line error or the terminal.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var text = ""
        for scalar in String(decoding: bytes.prefix(40), as: UTF8.self).unicodeScalars {
            if scalar.properties.generalCategory == .control {
                text += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return bytes.count > 40 ? text + "…" : text
    }
}

/// Walks the fields of one line, parsing numbers in the same pass that finds their end.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let line: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, line: Int) {
        self.bytes = bytes
        self.line = line
    }

    @inline(__always)
    private func isBlank(_ index: Int) -> Bool { bytes[index] == 0x20 || bytes[index] == 0x09 }

    @inline(__always)
    private mutating func skipBlanks() {
        while position < bytes.count, isBlank(position) { position += 1 }
    }

    /// Whether the field that just ended really ended (at a blank or the end of the line).
    @inline(__always)
    private func atFieldEnd() -> Bool { position == bytes.count || isBlank(position) }

    /// The next field; empty at the end of the line.
    mutating func word() -> UnsafeBufferPointer<UInt8> {
        skipBlanks()
        let start = position
        while position < bytes.count, !isBlank(position) { position += 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<position])
    }

    /// The whole field that starts at `start`, for error messages.
    private func field(from start: Int) -> UnsafeBufferPointer<UInt8> {
        var end = start
        while end < bytes.count, !isBlank(end) { end += 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    // `expected` is an autoclosure: the message is only built for a line that is malformed,
    // never on the sample path.
    func error(_ expected: @autoclosure () -> String, found: UnsafeBufferPointer<UInt8>? = nil) -> TraceError {
        TraceError(line: line, expected: expected(), found: found.map(TraceParser.excerpt) ?? "")
    }

    mutating func timestamp() throws(TraceError) -> Int64 {
        skipBlanks()
        let start = position
        var value: Int64 = 0
        while position < bytes.count, position - start < 18, bytes[position] &- 0x30 < 10 {
            value = value &* 10 &+ Int64(bytes[position] &- 0x30)
            position += 1
        }
        guard position > start, atFieldEnd() else {
            throw error("a timestamp in Unix milliseconds", found: field(from: start))
        }
        return value
    }

    mutating func number(_ expected: @autoclosure () -> String) throws(TraceError) -> Double {
        skipBlanks()
        let start = position
        guard let base = bytes.baseAddress, let value = DecimalParser.scan(base, &position, bytes.count),
            atFieldEnd()
        else { throw error(expected(), found: field(from: start)) }
        return value
    }

    mutating func optionalNumber(_ expected: @autoclosure () -> String) throws(TraceError) -> Double? {
        skipBlanks()
        if position < bytes.count, bytes[position] == UInt8(ascii: "-"),
            position + 1 == bytes.count || isBlank(position + 1)
        {
            position += 1
            return nil
        }
        return try number(expected())
    }

    mutating func modality() throws(TraceError) -> Modality {
        let field = word()
        guard let modality = Modality(parsing: String(decoding: field, as: UTF8.self)) else {
            throw error("a modality (\(Modality.spellings))", found: field)
        }
        return modality
    }

    /// Whether only blanks are left on the line.
    var atLineEnd: Bool {
        mutating get {
            skipBlanks()
            return position == bytes.count
        }
    }

    mutating func end() throws(TraceError) {
        let rest = word()
        guard rest.isEmpty else { throw error("the end of the line", found: rest) }
    }
}
