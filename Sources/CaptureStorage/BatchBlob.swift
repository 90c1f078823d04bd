import CaptureCore

/// The encoding of one stored sensor batch: the body of a Cyface `Accelerations` / `Rotations` /
/// `Directions` message (timestamps and axes as packed zigzag deltas that restart per batch,
/// values scaled to mm/s², mrad/s and 10 nT).
enum BatchBlob {
    static func scale(_ sensor: MotionSensor) -> Double { sensor == .magnetometer ? 100 : 1000 }

    static func encode(_ samples: [MotionSample], sensor: MotionSensor) throws -> [UInt8] {
        let factor = scale(sensor)
        var ts: [Int64] = [], xs: [Int64] = [], ys: [Int64] = [], zs: [Int64] = []
        ts.reserveCapacity(samples.count)
        xs.reserveCapacity(samples.count)
        ys.reserveCapacity(samples.count)
        zs.reserveCapacity(samples.count)
        var previous: (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
        for sample in samples {
            let x = try scaled(sample.x, factor), y = try scaled(sample.y, factor), z = try scaled(sample.z, factor)
            ts.append(sample.timestamp - previous.0)
            xs.append(try delta(x, previous.1))
            ys.append(try delta(y, previous.2))
            zs.append(try delta(z, previous.3))
            previous = (sample.timestamp, x, y, z)
        }
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * 8 + 16)
        for (field, column) in [ts, xs, ys, zs].enumerated() where !column.isEmpty {
            var packed: [UInt8] = []
            packed.reserveCapacity(column.count * 2)
            for value in column { appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &packed) }
            appendVarint(UInt64(field + 1) << 3 | 2, to: &out)
            appendVarint(UInt64(packed.count), to: &out)
            out.append(contentsOf: packed)
        }
        return out
    }

    struct EncodingError: Error, CustomStringConvertible {
        var description: String
    }

    private static func scaled(_ value: Double, _ factor: Double) throws -> Int64 {
        let x = value * factor
        guard x.isFinite, abs(x) < Double(Int32.max) else {
            throw EncodingError(description: "sensor value \(value) is out of range")
        }
        let floor = x.rounded(.down)
        return Int64(x - floor >= 0.5 ? floor + 1 : floor)
    }

    private static func delta(_ value: Int64, _ previous: Int64) throws -> Int64 {
        let d = value - previous
        guard d <= Int64(Int32.max), d >= Int64(Int32.min) else {
            throw EncodingError(description: "sensor delta \(d) does not fit 32 bits")
        }
        return d
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Decodes a batch body back into SI samples.
    static func decode(_ bytes: [UInt8], sensor: MotionSensor) throws -> [MotionSample] {
        var columns: [[Int64]] = [[], [], [], []]
        var i = 0
        func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
                guard shift < 64 else { break }
            }
            throw EncodingError(description: "truncated varint at byte \(i)")
        }
        while i < bytes.count {
            let key = try varint()
            guard key & 7 == 2, (1...4).contains(key >> 3) else {
                throw EncodingError(description: "unexpected field \(key >> 3) at byte \(i)")
            }
            let length = Int(try varint())
            guard length <= bytes.count - i else { throw EncodingError(description: "truncated batch") }
            let end = i + length
            var running: Int64 = 0
            while i < end {
                let raw = try varint()
                running &+= Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
                columns[Int(key >> 3) - 1].append(running)
            }
        }
        let count = columns[0].count
        guard columns.allSatisfy({ $0.count == count }) else {
            throw EncodingError(description: "batch columns differ in length")
        }
        let factor = scale(sensor)
        return (0..<count).map {
            MotionSample(
                timestamp: columns[0][$0], x: Double(columns[1][$0]) / factor, y: Double(columns[2][$0]) / factor,
                z: Double(columns[3][$0]) / factor)
        }
    }
}
