public import CaptureCore

/// The content of a decoded Cyface transfer file.
public struct CyfaceTransferFile: Sendable, Equatable {
    /// The container the input was in; `nil` for uncompressed input.
    public var compression: CompressionFormat?
    /// Whether the 2-byte `00 03` header was present.
    public var hasHeader: Bool
    /// The `format_version` field; always 3 for a successfully decoded file.
    public var formatVersion: Int
    /// All fixes, in file order.
    public var fixes: [Fix]
    /// The batches of each sensor in file order; each batch in SI units. Sensors without data
    /// have no entry.
    public var batches: [MotionSensor: [[MotionSample]]]
    /// Events with a known type, in file order.
    public var events: [Event]
    /// Events of type `EVENT_TYPE_UNSPECIFIED` (server-side metadata), in file order.
    public var metadataEvents: [CyfaceMetadataEvent]
    /// The number of attached files (images, videos, capturing log), which are skipped.
    public var attachmentCount: Int

    /// All samples of `sensor`, batches concatenated.
    public func samples(of sensor: MotionSensor) -> [MotionSample] {
        (batches[sensor] ?? []).flatMap { $0 }
    }
}

/// Decodes Cyface transfer files (spec §1.1, §1.7).
///
/// Accepts what the server's lenient deserializer accepts: raw deflate, zlib, gzip or uncompressed
/// data, with or without the `00 03` header. Rejects format v1 (`00 01` header), v2 and any other
/// version with ``CyfaceError/Kind/unsupportedVersion(_:)``. Truncated or corrupt input gives a
/// ``CyfaceError`` naming the problem and its byte offset; the decoder never traps on input.
///
/// The decoder is a hand-written wire reader rather than the generated SwiftProtobuf types,
/// because it reports offsets and field names and it checks the Cyface invariants (equal column
/// lengths, no 32-bit overflow of running sums).
public enum TransferFileDecoder {
    /// The most bytes a transfer file may decompress to: 256 MiB, more than twice a 24-hour ride
    /// (about 110 MB). Larger output is refused as a decompression bomb before it fills memory.
    public static let maximumDecompressedSize = 256 << 20

    /// Decodes a whole transfer file held in memory.
    public static func decode(
        _ bytes: [UInt8], maximumSize: Int = maximumDecompressedSize
    ) throws(CyfaceError) -> CyfaceTransferFile {
        let (format, plain) = try decompress(bytes, maximumSize: maximumSize)
        var file = try decodeUncompressed(plain)
        file.compression = format
        return file
    }

    /// Decompresses `bytes` if they are compressed, detecting the container.
    ///
    /// gzip and zlib are recognised by their headers. Anything else is tried as raw deflate; if
    /// that fails before producing any output and the data looks like an uncompressed file
    /// (starting with `00`, the header, or `80`/`8A`, the first Measurement fields), it is
    /// returned unchanged with a `nil` format.
    ///
    /// Output beyond `maximumSize` bytes is a ``CyfaceError/Kind/compression`` error.
    public static func decompress(
        _ bytes: [UInt8], maximumSize: Int = maximumDecompressedSize
    ) throws(CyfaceError) -> (CompressionFormat?, [UInt8]) {
        guard bytes.count >= 2 else {
            throw CyfaceError(.truncated, offset: bytes.count, "input of \(bytes.count) bytes is too short for a transfer file")
        }
        let format = CompressionFormat.detect(bytes[0], bytes[1])
        var output: [UInt8] = []
        let tooLarge = CyfaceError(
            .compression, "the data decompresses to more than \(maximumSize) bytes, more than any ride (a decompression bomb?)")
        do {
            let inflater = try Inflater(format: format)
            try inflater.write(bytes) { chunk in
                guard output.count + chunk.count <= maximumSize else { throw tooLarge }
                output += chunk
            }
            try inflater.finish()
            return (format, output)
        } catch {
            let cyface = error as? CyfaceError ?? CyfaceError(.compression, "\(error)")
            let looksPlain = bytes[0] == 0x00 || bytes[0] == 0x80 || bytes[0] == 0x8A
            if format == .rawDeflate, output.isEmpty, looksPlain, cyface != tooLarge { return (nil, bytes) }
            throw cyface
        }
    }

    /// Decodes uncompressed data: `00 03 || Measurement` or a bare `Measurement`.
    public static func decodeUncompressed(_ bytes: [UInt8]) throws(CyfaceError) -> CyfaceTransferFile {
        var file = CyfaceTransferFile(
            compression: nil, hasHeader: false, formatVersion: 0, fixes: [], batches: [:], events: [],
            metadataEvents: [], attachmentCount: 0)
        var start = 0
        if bytes.first == 0x00 {
            guard bytes.count >= 2 else {
                throw CyfaceError(.truncated, offset: 1, "data ends inside the 2-byte format header")
            }
            let version = Int(bytes[0]) << 8 | Int(bytes[1])
            try checkVersion(version, offset: 0, source: "header")
            file.hasHeader = true
            start = 2
        }
        var reader = ProtobufReader(bytes[start...], context: "Measurement")
        var versionSeen = false
        while !reader.isAtEnd {
            let (field, wireType, tagOffset) = try reader.readTag()
            switch field {
            case 16:
                guard wireType == ProtobufWireType.varint.rawValue else {
                    throw reader.wrongWireType(field: field, wireType: wireType, offset: tagOffset, expected: "0")
                }
                let raw = try reader.readVarint()
                let version = Int(exactly: raw) ?? Int.max
                try checkVersion(version, offset: tagOffset, source: "format_version field")
                file.formatVersion = version
                versionSeen = true
            case 17:
                let body = try lengthDelimited(&reader, field: field, wireType: wireType, tagOffset: tagOffset)
                file.fixes += try CyfaceLocations.decode(body)
            case 18, 19, 20:
                let sensor: MotionSensor = field == 18 ? .accelerometer : field == 19 ? .gyroscope : .magnetometer
                let body = try lengthDelimited(&reader, field: field, wireType: wireType, tagOffset: tagOffset)
                file.batches[sensor, default: []] += try sensorBatches(body, sensor: sensor)
            case 21:
                let body = try lengthDelimited(&reader, field: field, wireType: wireType, tagOffset: tagOffset)
                switch try CyfaceEvents.decode(body) {
                case .event(let event): file.events.append(event)
                case .metadata(let event): file.metadataEvents.append(event)
                }
            case 22, 23, 24:
                _ = try lengthDelimited(&reader, field: field, wireType: wireType, tagOffset: tagOffset)
                file.attachmentCount += 1
            default:
                try reader.skipField(field: field, wireType: wireType, tagOffset: tagOffset)
            }
        }
        guard versionSeen else {
            throw CyfaceError(
                .unsupportedVersion(0), offset: start,
                "Measurement has no format_version field (expected 3)")
        }
        return file
    }

    private static func checkVersion(_ version: Int, offset: Int, source: String) throws(CyfaceError) {
        switch version {
        case 3:
            return
        case 1:
            throw CyfaceError(
                .unsupportedVersion(1), offset: offset,
                "\(source) says format v1 (legacy big-endian binary), which is not supported; only v3 is")
        case 2:
            throw CyfaceError(
                .unsupportedVersion(2), offset: offset,
                "\(source) says format v2 (unsigned timestamps), which is not supported; only v3 is")
        default:
            throw CyfaceError(
                .unsupportedVersion(version), offset: offset,
                "\(source) says format version \(version); only v3 is supported")
        }
    }

    private static func lengthDelimited(
        _ reader: inout ProtobufReader, field: Int, wireType: UInt8, tagOffset: Int
    ) throws(CyfaceError) -> ArraySlice<UInt8> {
        guard wireType == ProtobufWireType.lengthDelimited.rawValue else {
            throw reader.wrongWireType(field: field, wireType: wireType, offset: tagOffset, expected: "2")
        }
        return try reader.readLengthDelimited(field: field)
    }

    /// Decodes an `AccelerationsBinary`/`RotationsBinary`/`DirectionsBinary` body.
    private static func sensorBatches(_ body: ArraySlice<UInt8>, sensor: MotionSensor) throws(CyfaceError)
        -> [[MotionSample]]
    {
        var reader = ProtobufReader(body, context: "\(CyfaceBatch.messageName(for: sensor))Binary")
        var batches: [[MotionSample]] = []
        while !reader.isAtEnd {
            let (field, wireType, tagOffset) = try reader.readTag()
            if field == 1 {
                let batch = try lengthDelimited(&reader, field: field, wireType: wireType, tagOffset: tagOffset)
                batches.append(try CyfaceBatch.decode(batch, sensor: sensor))
            } else {
                try reader.skipField(field: field, wireType: wireType, tagOffset: tagOffset)
            }
        }
        return batches
    }
}
