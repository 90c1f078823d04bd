public import CaptureCore

/// Writes Cyface v3 transfer files: `RAW_DEFLATE(00 03 || Measurement)` (spec §1.1, §1.6).
///
/// Fields are written in field-number order: `format_version = 3` (16), `location_records` (17,
/// always present, `8A 01 00` when there are no fixes), the sensor fields 18/19/20 (only when they
/// have batches), then the events (21). Sensor batches are streamed from caller-supplied sources,
/// so memory stays bounded by one batch plus the compressor's buffers, whatever the measurement's
/// length:
///
/// ```swift
/// let acc = CyfaceSensorBatches(sensor: .accelerometer, summary: summary) { try cursor.next() }
/// try TransferFileWriter.write(fixes: fixes, sensors: [acc], events: events) { chunk in
///     try file.write(contentsOf: chunk)
/// }
/// ```
public enum TransferFileWriter {
    /// The format version this writer produces.
    public static let formatVersion = 3
    /// The 2-byte big-endian header that precedes the protobuf message.
    public static let header: [UInt8] = [0x00, 0x03]

    /// How the output is compressed.
    public enum Compression: Sendable, Equatable {
        /// Raw DEFLATE at the given level (the SDKs use 5).
        case rawDeflate(level: Int)
        /// No compression: the bare `00 03 || Measurement` bytes.
        case none

        /// Raw deflate at level 5, like the SDKs.
        public static let cyface = Compression.rawDeflate(level: Deflater.cyfaceLevel)
    }

    /// Streams a transfer file to `sink`.
    ///
    /// - Parameters:
    ///   - fixes: all fixes of the measurement, in ascending time (one delta state across them).
    ///   - sensors: at most one source per sensor, in any order; sources with no batches are omitted.
    ///   - events: events in ascending time; written as given.
    ///   - compression: default raw deflate level 5.
    ///   - chunkSize: how much uncompressed data is gathered before it is compressed, and the
    ///     largest piece passed to `sink`.
    ///   - sink: receives the output in order.
    /// - Throws: ``CyfaceError`` (`.summaryMismatch` when a source's bodies differ from its summary,
    ///   `.invalidArgument` for two sources of one sensor, encoding errors), or whatever a source or
    ///   the sink throws. After an error the output is incomplete and must be discarded.
    public static func write(
        fixes: some Collection<Fix>,
        sensors: [CyfaceSensorBatches],
        events: some Sequence<Event>,
        compression: Compression = .cyface,
        chunkSize: Int = 64 * 1024,
        to sink: ([UInt8]) throws -> Void
    ) throws {
        let ordered = sensors.sorted { CyfaceBatch.measurementField(for: $0.sensor) < CyfaceBatch.measurementField(for: $1.sensor) }
        for (a, b) in zip(ordered, ordered.dropFirst()) where a.sensor == b.sensor {
            throw CyfaceError(.invalidArgument, "two batch sources for \(a.sensor.shortName)")
        }
        var output = try Output(compression: compression, chunkSize: chunkSize)
        var writer = ProtobufWriter(capacity: 16)
        writer.bytes += header
        writer.writeVarintField(16, UInt64(formatVersion))
        let locations = try CyfaceLocations.encode(fixes)
        writer.writeLengthPrefix(17, length: locations.count)
        try output.append(writer.bytes, sink)
        try output.append(locations, sink)

        for source in ordered where source.summary.batchCount > 0 {
            try writeSensor(source, into: &output, sink)
        }
        for source in ordered where source.summary.batchCount == 0 {
            if try source.nextBody() != nil {
                throw CyfaceError(.summaryMismatch, "\(source.sensor.shortName): a batch was supplied but the summary declares none")
            }
        }
        for event in events {
            let body = try CyfaceEvents.encode(event)
            var prefix = ProtobufWriter(capacity: 4)
            prefix.writeLengthPrefix(21, length: body.count)
            try output.append(prefix.bytes, sink)
            try output.append(body, sink)
        }
        try output.finish(sink)
    }

    private static func writeSensor(_ source: CyfaceSensorBatches, into output: inout Output, _ sink: ([UInt8]) throws -> Void) throws {
        let name = source.sensor.shortName
        var prefix = ProtobufWriter(capacity: 8)
        prefix.writeLengthPrefix(CyfaceBatch.measurementField(for: source.sensor), length: source.summary.fieldContentByteCount)
        try output.append(prefix.bytes, sink)
        var seen = CyfaceBatchSummary()
        while let body = try source.nextBody() {
            seen.add(bodyByteCount: body.count)
            guard seen.batchCount <= source.summary.batchCount,
                seen.fieldContentByteCount <= source.summary.fieldContentByteCount
            else {
                throw CyfaceError(
                    .summaryMismatch,
                    "\(name): batches exceed the declared \(source.summary.batchCount) batches / \(source.summary.bodyByteCount) bytes")
            }
            var framing = ProtobufWriter(capacity: 4)
            framing.writeLengthPrefix(1, length: body.count)
            try output.append(framing.bytes, sink)
            try output.append(body, sink)
        }
        guard seen == source.summary else {
            throw CyfaceError(
                .summaryMismatch,
                "\(name): got \(seen.batchCount) batches / \(seen.bodyByteCount) bytes, declared \(source.summary.batchCount) / \(source.summary.bodyByteCount)")
        }
    }

    /// Gathers uncompressed bytes and passes them on, compressed or not, in bounded pieces.
    private struct Output {
        var buffer: [UInt8] = []
        let chunkSize: Int
        let deflater: Deflater?

        init(compression: Compression, chunkSize: Int) throws(CyfaceError) {
            guard chunkSize >= 1 else { throw CyfaceError(.invalidArgument, "chunk size \(chunkSize) < 1") }
            self.chunkSize = chunkSize
            switch compression {
            case .rawDeflate(let level): deflater = try Deflater(level: level, chunkSize: chunkSize)
            case .none: deflater = nil
            }
            buffer.reserveCapacity(chunkSize)
        }

        mutating func append(_ bytes: [UInt8], _ sink: ([UInt8]) throws -> Void) throws {
            if buffer.count + bytes.count <= chunkSize {
                buffer += bytes
                return
            }
            try flush(sink)
            if bytes.count >= chunkSize {
                try emit(bytes, sink)
            } else {
                buffer += bytes
            }
        }

        mutating func flush(_ sink: ([UInt8]) throws -> Void) throws {
            guard !buffer.isEmpty else { return }
            try emit(buffer, sink)
            buffer.removeAll(keepingCapacity: true)
        }

        func emit(_ bytes: [UInt8], _ sink: ([UInt8]) throws -> Void) throws {
            if let deflater {
                try deflater.write(bytes, to: sink)
            } else {
                var start = 0
                while start < bytes.count {
                    let end = min(start + chunkSize, bytes.count)
                    try sink(Array(bytes[start..<end]))
                    start = end
                }
            }
        }

        mutating func finish(_ sink: ([UInt8]) throws -> Void) throws {
            try flush(sink)
            try deflater?.finish(to: sink)
        }
    }
}

/// A whole measurement in memory, for small measurements and tests.
public struct CyfaceMeasurement: Sendable, Equatable {
    /// All fixes, in ascending time.
    public var fixes: [Fix]
    /// The samples of each sensor, in ascending time.
    public var samples: [MotionSensor: [MotionSample]]
    /// The events, in ascending time.
    public var events: [Event]

    /// Creates a measurement.
    public init(fixes: [Fix] = [], samples: [MotionSensor: [MotionSample]] = [:], events: [Event] = []) {
        self.fixes = fixes
        self.samples = samples
        self.events = events
    }
}

extension TransferFileWriter {
    /// Serialises an in-memory measurement, splitting each sensor's samples into batches of at most
    /// `batchSize` samples.
    ///
    /// - Returns: `00 03 || Measurement`, uncompressed unless `compression` says otherwise.
    /// - Throws: ``CyfaceError`` for values that cannot be encoded or a `batchSize` < 1.
    public static func serialize(
        _ measurement: CyfaceMeasurement, batchSize: Int = CyfaceBatch.maximumSampleCount,
        compression: Compression = .none
    ) throws(CyfaceError) -> [UInt8] {
        guard batchSize >= 1 else { throw CyfaceError(.invalidArgument, "batch size \(batchSize) < 1") }
        var sources: [CyfaceSensorBatches] = []
        for sensor in MotionSensor.allCases {
            let samples = measurement.samples[sensor] ?? []
            var bodies: [[UInt8]] = []
            var start = 0
            while start < samples.count {
                let end = min(start + batchSize, samples.count)
                bodies.append(try CyfaceBatch.encode(samples[start..<end], sensor: sensor))
                start = end
            }
            sources.append(CyfaceSensorBatches(sensor: sensor, bodies: bodies))
        }
        var result: [UInt8] = []
        do {
            try write(
                fixes: measurement.fixes, sensors: sources, events: measurement.events, compression: compression
            ) { result += $0 }
        } catch let error as CyfaceError {
            throw error
        } catch {
            // The sources and the sink above never throw anything but CyfaceError.
            throw CyfaceError(.invalidArgument, "unexpected error: \(error)")
        }
        return result
    }
}
