public import CaptureCore

/// A minimal protobuf wire reader over a slice of a byte array.
///
/// Positions are indices of the underlying array, so every error carries the absolute byte offset
/// without extra bookkeeping. Every read checks its bounds and throws instead of trapping.
struct ProtobufReader {
    /// The bytes of the message being read (indices are offsets in the whole buffer).
    let bytes: ArraySlice<UInt8>
    /// The next byte to read.
    private(set) var position: Int
    /// What is being read, for error messages (e.g. "LocationRecords").
    let context: String

    init(_ bytes: ArraySlice<UInt8>, context: String) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.context = context
    }

    var isAtEnd: Bool { position >= bytes.endIndex }

    /// Reads a varint of at most 10 bytes.
    mutating func readVarint() throws(CyfaceError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.endIndex else {
                throw CyfaceError(.truncated, offset: start, "\(context): data ends inside a varint")
            }
            let byte = bytes[position]
            position += 1
            if shift == 63, byte > 1 {
                throw CyfaceError(.malformed, offset: start, "\(context): varint longer than 64 bits")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a field tag; returns the field number, the wire type and the offset of the tag.
    mutating func readTag() throws(CyfaceError) -> (field: Int, wireType: UInt8, offset: Int) {
        let offset = position
        let key = try readVarint()
        let field = key >> 3
        guard field >= 1, field <= 536_870_911 else {
            throw CyfaceError(.malformed, offset: offset, "\(context): invalid field number \(field)")
        }
        return (Int(field), UInt8(key & 7), offset)
    }

    /// Reads a length prefix and returns the slice it delimits.
    mutating func readLengthDelimited(field: Int) throws(CyfaceError) -> ArraySlice<UInt8> {
        let offset = position
        let length = try readVarint()
        let remaining = bytes.endIndex - position
        guard length <= UInt64(remaining) else {
            throw CyfaceError(
                .truncated, offset: offset,
                "\(context): field \(field) declares \(length) bytes but only \(remaining) follow")
        }
        let end = position + Int(length)
        defer { position = end }
        return bytes[position..<end]
    }

    /// Skips a field of an unknown number, following the protobuf rules for its wire type.
    mutating func skipField(field: Int, wireType: UInt8, tagOffset: Int) throws(CyfaceError) {
        switch wireType {
        case ProtobufWireType.varint.rawValue:
            _ = try readVarint()
        case ProtobufWireType.fixed64.rawValue:
            try skip(8, field: field)
        case ProtobufWireType.lengthDelimited.rawValue:
            _ = try readLengthDelimited(field: field)
        case ProtobufWireType.fixed32.rawValue:
            try skip(4, field: field)
        default:
            // Groups are deprecated and never used by Cyface; wire types 6 and 7 do not exist.
            throw CyfaceError(
                .malformed, offset: tagOffset, "\(context): field \(field) has unsupported wire type \(wireType)")
        }
    }

    private mutating func skip(_ count: Int, field: Int) throws(CyfaceError) {
        guard bytes.endIndex - position >= count else {
            throw CyfaceError(.truncated, offset: position, "\(context): data ends inside field \(field)")
        }
        position += count
    }

    /// An error for a known field that arrived with the wrong wire type.
    func wrongWireType(field: Int, wireType: UInt8, offset: Int, expected: String) -> CyfaceError {
        CyfaceError(
            .malformed, offset: offset,
            "\(context): field \(field) has wire type \(wireType), expected \(expected)")
    }

    /// Reads the values of a repeated varint field, packed (wire type 2) or not (wire type 0), and
    /// appends them to `values`.
    mutating func readRepeatedVarint(
        field: Int, wireType: UInt8, tagOffset: Int, into values: inout [UInt64]
    ) throws(CyfaceError) {
        switch wireType {
        case ProtobufWireType.varint.rawValue:
            values.append(try readVarint())
        case ProtobufWireType.lengthDelimited.rawValue:
            var packed = ProtobufReader(try readLengthDelimited(field: field), context: "\(context) field \(field)")
            while !packed.isAtEnd { values.append(try packed.readVarint()) }
        default:
            throw wrongWireType(field: field, wireType: wireType, offset: tagOffset, expected: "0 or 2 (packed)")
        }
    }
}

extension ProtobufReader {
    /// The next absolute value of a delta-encoded `sint32` column (Cyface's sensor and location
    /// columns): `sum` plus the zigzag-encoded delta `raw`.
    ///
    /// - Parameters:
    ///   - context: the message, first in an error ("Accelerations", "LocationRecords").
    ///   - what: the value, in an error ("x value 3", "latitude 3"); only built when one is thrown.
    ///   - offset: the byte offset errors report.
    /// - Throws: ``CyfaceError`` `.malformed` when `raw` is wider than a `sint32`,
    ///   `.valueOutOfRange` when the sum leaves the 32-bit range.
    @inline(__always)
    static func accumulateSInt32(
        _ sum: Int64, _ raw: UInt64, context: String, what: @autoclosure () -> String, offset: Int
    ) throws(CyfaceError) -> Int64 {
        guard raw <= UInt64(UInt32.max) else {
            throw CyfaceError(.malformed, offset: offset, "\(context): \(what()) is wider than sint32")
        }
        let next = sum + ProtobufWriter.unZigZag(raw)
        guard next >= Int64(Int32.min), next <= Int64(Int32.max) else {
            throw CyfaceError(.valueOutOfRange, offset: offset, "\(context): \(what()) leaves the 32-bit range")
        }
        return next
    }
}

extension ProtobufWriter {
    /// Reverses ZigZag for a `sint64`.
    @inlinable
    static func unZigZag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}
