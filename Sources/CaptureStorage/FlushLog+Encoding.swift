import CZlib
import CaptureCore
import Foundation

/// A flush log record's payload: a flush and its steps, written and read in one binary layout.
extension FlushLog {
    static func encode(_ encoded: EncodedFlush, steps: [Step] = [], sequence: UInt64, measurement: Int64) -> [UInt8] {
        var payload = Writer()
        let flush = encoded.flush
        payload.u32(UInt32(flush.track))
        payload.u32(UInt32(encoded.batches.count))
        for batch in encoded.batches {
            payload.bytes.append(UInt8(batch.sensor.rawValue))
            payload.i64(batch.firstTimestamp)
            payload.i64(batch.lastTimestamp)
            payload.u32(UInt32(batch.count))
            payload.u32(UInt32(batch.data.count))
            payload.bytes += batch.data
        }
        payload.u32(UInt32(flush.fixes.count))
        for fix in flush.fixes {
            payload.i64(fix.timestamp)
            payload.f64(fix.latitude)
            payload.f64(fix.longitude)
            let optional = [fix.altitude, fix.horizontalAccuracy, fix.verticalAccuracy, fix.speed, fix.course, fix.hdop, fix.vdop, fix.pdop]
            var mask: UInt16 = 0
            for (bit, value) in optional.enumerated() where value != nil { mask |= 1 << bit }
            if fix.satellites != nil { mask |= 1 << 8 }
            if fix.mode != nil { mask |= 1 << 9 }
            payload.u16(mask)
            for value in optional { if let value { payload.f64(value) } }
            if let satellites = fix.satellites { payload.i64(Int64(satellites)) }
            if let mode = fix.mode { payload.bytes.append(UInt8(mode.rawValue)) }
        }
        payload.u32(UInt32(flush.pressures.count))
        for pressure in flush.pressures {
            payload.i64(pressure.timestamp)
            payload.f64(pressure.hectopascals)
        }
        let withEvents = !flush.events.isEmpty || !steps.isEmpty
        if withEvents {
            let phase: UInt8 =
                switch flush.state {
                case .idle: 0
                case .capturing: 1
                case .paused: 2
                case .finished: 3
                }
            payload.bytes.append(phase)
            payload.u32(UInt32(flush.state.track))
            payload.string(flush.modality?.rawValue)
            payload.u32(UInt32(flush.events.count))
            for event in flush.events {
                payload.i64(event.timestamp)
                payload.bytes.append(UInt8(event.type.rawValue))
                payload.string(event.value)
            }
        }
        if !steps.isEmpty { encode(steps, into: &payload) }
        var record = Writer()
        record.bytes = !steps.isEmpty ? stepsMagic : withEvents ? eventsMagic : magic
        record.u64(sequence)
        record.i64(measurement)
        record.u32(UInt32(payload.bytes.count))
        var crc = crc32(0, record.bytes, 24)
        crc = payload.bytes.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        record.u32(UInt32(crc))
        record.bytes += payload.bytes
        return record.bytes
    }

    /// The flush in a record's payload and its steps; `kind`: the record's, `CFL2` with events,
    /// `CFL3` with steps (and events, if any).
    static func decode(_ payload: [UInt8], kind: Kind = .samples) -> (EncodedFlush, [Step])? {
        var reader = Reader(payload)
        let track = Int(reader.u32())
        var batches: [EncodedFlush.Batch] = []
        for _ in 0..<reader.count(atLeast: 25) {
            guard let sensor = MotionSensor(rawValue: Int(reader.u8())) else { return nil }
            let first = reader.i64()
            let last = reader.i64()
            let count = Int(reader.u32())
            let data = reader.bytes(Int(reader.u32()))
            batches.append(.init(sensor: sensor, firstTimestamp: first, lastTimestamp: last, count: count, data: data))
        }
        var fixes: [Fix] = []
        for _ in 0..<reader.count(atLeast: 26) {
            var fix = Fix(timestamp: reader.i64(), latitude: reader.f64(), longitude: reader.f64())
            let mask = reader.u16()
            func optional(_ bit: Int) -> Double? { mask & (1 << bit) != 0 ? reader.f64() : nil }
            fix.altitude = optional(0)
            fix.horizontalAccuracy = optional(1)
            fix.verticalAccuracy = optional(2)
            fix.speed = optional(3)
            fix.course = optional(4)
            fix.hdop = optional(5)
            fix.vdop = optional(6)
            fix.pdop = optional(7)
            if mask & (1 << 8) != 0 { fix.satellites = Int(reader.i64()) }
            if mask & (1 << 9) != 0 {
                guard let mode = FixMode(rawValue: Int(reader.u8())) else { return nil }
                fix.mode = mode
            }
            fixes.append(fix)
        }
        var pressures: [PressureSample] = []
        for _ in 0..<reader.count(atLeast: 16) {
            pressures.append(PressureSample(timestamp: reader.i64(), hectopascals: reader.f64()))
        }
        var decoded = EncodedFlush(track: track, batches: batches, fixes: fixes, pressures: pressures)
        var steps: [Step] = []
        if kind != .samples {
            let phase = reader.u8()
            let stateTrack = Int(reader.u32())
            let state: Lifecycle.State
            switch phase {
            case 0: state = .idle
            case 1: state = .capturing(track: stateTrack)
            case 2: state = .paused(track: stateTrack)
            case 3: state = .finished(tracks: stateTrack)
            default: return nil
            }
            var modality: Modality?
            if let name = reader.string() {
                guard let known = Modality(rawValue: name) else { return nil }
                modality = known
            }
            var events: [Event] = []
            for _ in 0..<reader.count(atLeast: 13) {
                let time = reader.i64()
                guard let type = EventType(rawValue: Int(reader.u8())) else { return nil }
                events.append(Event(timestamp: time, type: type, value: reader.string()))
            }
            if kind == .steps {
                guard let decodedSteps = decodeSteps(&reader), !decodedSteps.isEmpty else { return nil }
                steps = decodedSteps
            } else if events.isEmpty {
                return nil
            }
            if !events.isEmpty { decoded.carry(events, state: state, modality: modality) }
        }
        guard reader.isComplete else { return nil }
        return (decoded, steps)
    }

    struct Writer {
        var bytes: [UInt8] = []
        mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
        mutating func f64(_ value: Double) { u64(value.bitPattern) }
        mutating func string(_ value: String?) {
            guard let value else { return u32(.max) }
            let utf8 = Array(value.utf8)
            u32(UInt32(utf8.count))
            bytes += utf8
        }
    }

    /// Reads what ``Writer`` wrote; past the end it reads zeros and remembers the overrun.
    struct Reader {
        let bytes: [UInt8]
        var position = 0
        var overrun = false
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isComplete: Bool { !overrun && position == bytes.count }
        mutating func skip(_ count: Int) { position += count }
        mutating func bytes(_ count: Int) -> [UInt8] {
            guard count <= bytes.count - position else {
                overrun = true
                position = bytes.count
                return []
            }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
            let size = MemoryLayout<T>.size
            guard size <= bytes.count - position else {
                overrun = true
                position = bytes.count
                return 0
            }
            defer { position += size }
            return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
        }
        mutating func u8() -> UInt8 { integer(UInt8.self) }
        mutating func u16() -> UInt16 { integer(UInt16.self) }
        mutating func u32() -> UInt32 { integer(UInt32.self) }
        mutating func u64() -> UInt64 { integer(UInt64.self) }
        mutating func i64() -> Int64 { Int64(bitPattern: u64()) }
        mutating func f64() -> Double { Double(bitPattern: u64()) }
        mutating func string() -> String? {
            let length = u32()
            guard length != .max else { return nil }
            return String(decoding: bytes(Int(length)), as: UTF8.self)
        }
        /// A count read from the payload, bounded by what the rest could hold at `atLeast` bytes
        /// an element, so that a damaged count cannot make a huge loop.
        mutating func count(atLeast size: Int) -> Int {
            let count = Int(u32())
            return min(count, (bytes.count - position) / size)
        }
    }
}
