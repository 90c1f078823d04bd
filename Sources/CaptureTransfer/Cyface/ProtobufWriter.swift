public import CaptureCore

/// Protobuf wire types (the low three bits of a field tag); the deprecated groups (3 and 4) are
/// neither written nor read.
public enum ProtobufWireType: UInt8, Sendable {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// fixed64, sfixed64, double.
    case fixed64 = 1
    /// string, bytes, embedded messages, packed repeated fields.
    case lengthDelimited = 2
    /// fixed32, sfixed32, float.
    case fixed32 = 5
}

/// A minimal protobuf wire writer that appends to a byte array.
///
/// It writes exactly what protobuf-java and SwiftProtobuf write for the same values, so its output
/// can be compared byte for byte with the spec's vectors.
///
/// ```swift
/// var writer = ProtobufWriter()
/// writer.writeVarintField(16, 3)   // 80 01 03
/// ```
public struct ProtobufWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// Creates a writer with room for `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes the varint encoding of `value` takes (1…10).
    @inlinable
    public static func varintSize(_ value: UInt64) -> Int {
        // One byte per started group of 7 significant bits; 0 still takes one byte.
        let bits = 64 - value.leadingZeroBitCount
        return bits == 0 ? 1 : (bits + 6) / 7
    }

    /// ZigZag encoding of a `sint32` (`-1 → 1`, `1 → 2`).
    @inlinable
    public static func zigZag(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value &<< 1) ^ (value >> 31))
    }

    /// ZigZag encoding of a `sint64`.
    @inlinable
    public static func zigZag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value &<< 1) ^ (value >> 63))
    }

    /// Appends `value` as a base-128 varint.
    @inlinable
    public mutating func writeVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Appends a field tag.
    @inlinable
    public mutating func writeTag(_ field: Int, _ wireType: ProtobufWireType) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends a varint field (uint32, uint64, enum, bool): tag then value.
    @inlinable
    public mutating func writeVarintField(_ field: Int, _ value: UInt64) {
        writeTag(field, .varint)
        writeVarint(value)
    }

    /// Appends a length-delimited field (bytes, string, message): tag, length, content.
    @inlinable
    public mutating func writeLengthDelimited(_ field: Int, _ content: some Collection<UInt8>) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(content.count))
        bytes.append(contentsOf: content)
    }

    /// Appends the tag and length of a length-delimited field whose content follows separately.
    @inlinable
    public mutating func writeLengthPrefix(_ field: Int, length: Int) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(length))
    }

    /// Appends a packed repeated `sint32` field; nothing when `values` is empty (proto3).
    public mutating func writePackedSInt32(_ field: Int, _ values: some Collection<Int32>) {
        guard !values.isEmpty else { return }
        let length = values.reduce(0) { $0 + Self.varintSize(UInt64(Self.zigZag($1))) }
        writeLengthPrefix(field, length: length)
        for value in values { writeVarint(UInt64(Self.zigZag(value))) }
    }

    /// Appends a packed repeated `sint64` field; nothing when `values` is empty (proto3).
    public mutating func writePackedSInt64(_ field: Int, _ values: some Collection<Int64>) {
        guard !values.isEmpty else { return }
        let length = values.reduce(0) { $0 + Self.varintSize(Self.zigZag($1)) }
        writeLengthPrefix(field, length: length)
        for value in values { writeVarint(Self.zigZag(value)) }
    }

    /// The size of a length-delimited field holding `length` bytes: tag + length varint + content.
    @inlinable
    public static func lengthDelimitedFieldSize(_ field: Int, length: Int) -> Int {
        varintSize(UInt64(field) << 3) + varintSize(UInt64(length)) + length
    }
}
