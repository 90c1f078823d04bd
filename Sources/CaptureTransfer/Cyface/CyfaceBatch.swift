public import CaptureCore

/// Encoding of one sensor batch: the body of one `Accelerations`, `Rotations` or `Directions`
/// message (spec §1.2, §1.4).
///
/// A body holds four packed columns: `timestamp` (field 1, `sint64`, Unix ms) and `x`, `y`, `z`
/// (fields 2–4, `sint32`, scaled by ``scale(for:)`` and rounded like Java's `Math.round`). Every
/// column is in delta format and the delta state restarts in every batch, so a body can be stored
/// as it is (one row per sensor per flush) and later streamed into a transfer file unchanged.
///
/// ```swift
/// let body = try CyfaceBatch.encode(samples, sensor: .accelerometer)
/// let back = try CyfaceBatch.decode(body, sensor: .accelerometer)
/// ```
public enum CyfaceBatch {
    /// The largest batch the Android SDK ever delivers (`MAXIMUM_CAPTURED_DATA_MESSAGE_SIZE`).
    public static let maximumSampleCount = 800

    /// The factor from SI units to the integer unit of the transfer format.
    ///
    /// Accelerometer m/s² × 1000 → mm/s²; gyroscope rad/s × 1000 → mrad/s; magnetometer µT × 100 →
    /// 10 nT. (The iOS SDK uses × 1000 for the magnetometer, a known defect; spec §1.8.)
    public static func scale(for sensor: MotionSensor) -> Double { sensor.transferScale }

    /// The field of `Measurement` that carries the batches of `sensor`: 18, 19 or 20.
    public static func measurementField(for sensor: MotionSensor) -> Int {
        switch sensor {
        case .accelerometer: 18
        case .gyroscope: 19
        case .magnetometer: 20
        }
    }

    /// Encodes `samples` as the body of one batch message.
    ///
    /// The values are scaled by ``scale(for:)`` in double precision and rounded half up. (Android
    /// holds sensor values as `float` and widens them before scaling; results differ from that only
    /// for values within float precision of a rounding boundary.) Empty input gives an empty body.
    /// The result is allocated once, with its exact size. The batch size is not limited here; keep
    /// batches at ≤ ``maximumSampleCount`` samples like the SDKs.
    ///
    /// - Throws: ``CyfaceError/Kind/valueOutOfRange`` when a scaled value or a delta does not fit
    ///   32 bits (or a time delta 64 bits); ``CyfaceError/Kind/notFinite`` for NaN or ±∞. Values
    ///   are never wrapped.
    public static func encode(_ samples: some Collection<MotionSample>, sensor: MotionSensor)
        throws(CyfaceError) -> [UInt8]
    {
        try encode(Array(samples)[...], sensor: sensor)
    }

    /// ``encode(_:sensor:)-(Collection)`` for the storage path: concrete, so that no generic
    /// dispatch happens per sample.
    public static func encode(_ samples: ArraySlice<MotionSample>, sensor: MotionSensor) throws(CyfaceError) -> [UInt8] {
        try samples.withUnsafeBufferPointer { buffer throws(CyfaceError) in try encode(buffer: buffer, sensor: sensor) }
    }

    private static func encode(buffer samples: UnsafeBufferPointer<MotionSample>, sensor: MotionSensor)
        throws(CyfaceError) -> [UInt8]
    {
        guard !samples.isEmpty else { return [] }
        let factor = scale(for: sensor)
        let count = samples.count
        // Each value is scaled, rounded and delta-encoded once, into scratch; sizing and writing
        // then read the scratch. Column c occupies scratch[c * count ..< (c + 1) * count].
        let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: count * 4)
        defer { scratch.deallocate() }
        var sizes = (0, 0, 0, 0)
        sizes.0 = try column(samples, axis: .timestamp, sensor: sensor, factor: factor, into: scratch)
        sizes.1 = try column(samples, axis: .x, sensor: sensor, factor: factor, into: scratch + count)
        sizes.2 = try column(samples, axis: .y, sensor: sensor, factor: factor, into: scratch + 2 * count)
        sizes.3 = try column(samples, axis: .z, sensor: sensor, factor: factor, into: scratch + 3 * count)
        let total =
            ProtobufWriter.lengthDelimitedFieldSize(1, length: sizes.0)
            + ProtobufWriter.lengthDelimitedFieldSize(2, length: sizes.1)
            + ProtobufWriter.lengthDelimitedFieldSize(3, length: sizes.2)
            + ProtobufWriter.lengthDelimitedFieldSize(4, length: sizes.3)
        // The exact size is known, so the bytes are written straight into the array's storage.
        return [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
            var position = 0
            func put(_ value: UInt64) {
                var v = value
                while v >= 0x80 {
                    output[position] = UInt8(truncatingIfNeeded: v) | 0x80
                    position += 1
                    v >>= 7
                }
                output[position] = UInt8(v)
                position += 1
            }
            for (field, size) in [sizes.0, sizes.1, sizes.2, sizes.3].enumerated() {
                put(UInt64(field + 1) << 3 | 2)  // tag: field, length-delimited
                put(UInt64(size))
                for index in field * count..<(field + 1) * count { put(scratch[index]) }
            }
            initialized = position
        }
    }

    /// Decodes a batch body back to samples in SI units (integer value ÷ ``scale(for:)``).
    ///
    /// Accepts packed and unpacked columns and skips unknown fields, as any protobuf parser would.
    /// Error offsets are indices into the array that `body` is a slice of.
    ///
    /// - Throws: ``CyfaceError`` (`.truncated`, `.malformed` or `.valueOutOfRange` when a running
    ///   sum leaves its 32/64-bit range); never traps on corrupt input.
    public static func decode(_ body: ArraySlice<UInt8>, sensor: MotionSensor) throws(CyfaceError)
        -> [MotionSample]
    {
        let name = messageName(for: sensor)
        var reader = ProtobufReader(body, context: name)
        var columns: [[UInt64]] = [[], [], [], []]
        while !reader.isAtEnd {
            let (field, wireType, tagOffset) = try reader.readTag()
            if (1...4).contains(field) {
                try reader.readRepeatedVarint(
                    field: field, wireType: wireType, tagOffset: tagOffset, into: &columns[field - 1])
            } else {
                try reader.skipField(field: field, wireType: wireType, tagOffset: tagOffset)
            }
        }
        let count = columns[0].count
        for axis in 1...3 where columns[axis].count != count {
            throw CyfaceError(
                .malformed, offset: body.startIndex,
                "\(name): \(columns[axis].count) values in field \(axis + 1) but \(count) timestamps")
        }
        let factor = scale(for: sensor)
        var samples: [MotionSample] = []
        samples.reserveCapacity(count)
        var time: Int64 = 0
        var sums: (Int64, Int64, Int64) = (0, 0, 0)
        for i in 0..<count {
            let (t, overflow) = time.addingReportingOverflow(ProtobufWriter.unZigZag(columns[0][i]))
            guard !overflow else {
                throw CyfaceError(.valueOutOfRange, offset: body.startIndex, "\(name): timestamp \(i) overflows 64 bits")
            }
            time = t
            sums.0 = try ProtobufReader.accumulateSInt32(
                sums.0, columns[1][i], context: name, what: "x value \(i)", offset: body.startIndex)
            sums.1 = try ProtobufReader.accumulateSInt32(
                sums.1, columns[2][i], context: name, what: "y value \(i)", offset: body.startIndex)
            sums.2 = try ProtobufReader.accumulateSInt32(
                sums.2, columns[3][i], context: name, what: "z value \(i)", offset: body.startIndex)
            samples.append(
                MotionSample(
                    timestamp: time, x: Double(sums.0) / factor, y: Double(sums.1) / factor,
                    z: Double(sums.2) / factor))
        }
        return samples
    }

    /// Decodes a batch body held in its own array; error offsets count from its first byte.
    public static func decode(_ body: [UInt8], sensor: MotionSensor) throws(CyfaceError) -> [MotionSample] {
        try decode(body[...], sensor: sensor)
    }

    /// The protobuf message name of one batch of `sensor`.
    static func messageName(for sensor: MotionSensor) -> String {
        switch sensor {
        case .accelerometer: "Accelerations"
        case .gyroscope: "Rotations"
        case .magnetometer: "Directions"
        }
    }

    private enum Axis { case timestamp, x, y, z }

    /// Validates one column and stores its zigzag-encoded deltas at `out`; returns their
    /// encoded size in bytes.
    @inline(__always)
    private static func column(
        _ samples: UnsafeBufferPointer<MotionSample>, axis: Axis, sensor: MotionSensor, factor: Double,
        into out: UnsafeMutablePointer<UInt64>
    ) throws(CyfaceError) -> Int {
        var previous: Int64 = 0
        var size = 0
        for index in 0..<samples.count {
            let sample = samples[index]
            let delta: Int64
            switch axis {
            case .timestamp:
                let (d, overflow) = sample.timestamp.subtractingReportingOverflow(previous)
                guard !overflow else {
                    throw CyfaceError(
                        .valueOutOfRange,
                        "\(sensor.shortName) sample \(index): timestamp delta \(sample.timestamp) − \(previous) overflows 64 bits")
                }
                previous = sample.timestamp
                delta = d
            case .x, .y, .z:
                let value = axis == .x ? sample.x : axis == .y ? sample.y : sample.z
                // Inline fast path of JavaRound.scaledInt32 for the common case (finite, well
                // inside 32 bits): the same half-up rounding, without a call per value. Anything
                // else takes the checked path, which also builds the error.
                let x = value * factor
                let scaled: Int64
                if abs(x) < 2_147_483_647.0 {
                    var truncated = Int64(x)
                    if Double(truncated) > x { truncated -= 1 }
                    scaled = x - Double(truncated) >= 0.5 ? truncated + 1 : truncated
                } else {
                    scaled = try JavaRound.scaledInt32(
                        value, by: factor, what: "\(sensor.shortName) sample \(index) \(axis)")
                }
                delta = scaled - previous
                guard delta >= Int64(Int32.min), delta <= Int64(Int32.max) else {
                    throw CyfaceError(
                        .valueOutOfRange,
                        "\(sensor.shortName) sample \(index) \(axis): delta \(scaled) − \(previous) does not fit 32 bits")
                }
                previous = scaled
            }
            let encoded = ProtobufWriter.zigZag(delta)
            out[index] = encoded
            size += ProtobufWriter.varintSize(encoded)
        }
        return size
    }
}
