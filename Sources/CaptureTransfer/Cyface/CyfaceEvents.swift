public import CaptureCore

/// Encoding of events as `Event` messages (spec §1.2, §1.6 item 5).
///
/// The timestamp is absolute (`uint64`, Unix ms). As in proto3, a zero timestamp and an empty or
/// `nil` value are not written.
public enum CyfaceEvents {
    /// Encodes one event as the body of an `Event` message.
    ///
    /// ```swift
    /// try CyfaceEvents.encode(Event(timestamp: 1652425925164, type: .lifecycleStart))
    /// // 08 ae c4 8a e2 8b 30 10 10
    /// ```
    ///
    /// - Throws: ``CyfaceError/Kind/valueOutOfRange`` for a negative timestamp (`uint64` field).
    public static func encode(_ event: Event) throws(CyfaceError) -> [UInt8] {
        guard event.timestamp >= 0 else {
            throw CyfaceError(.valueOutOfRange, "event \(event.type.name): negative timestamp \(event.timestamp)")
        }
        var writer = ProtobufWriter(capacity: 16 + (event.value?.utf8.count ?? 0))
        if event.timestamp != 0 { writer.writeVarintField(1, UInt64(event.timestamp)) }
        writer.writeVarintField(2, UInt64(event.type.rawValue))
        if let value = event.value, !value.isEmpty { writer.writeLengthDelimited(3, value.utf8) }
        return writer.bytes
    }

    /// An event as it appears on the wire, including types this tool does not model.
    enum Decoded {
        case event(Event)
        case metadata(CyfaceMetadataEvent)
    }

    /// Decodes the body of an `Event` message.
    static func decode(_ body: ArraySlice<UInt8>) throws(CyfaceError) -> Decoded {
        var reader = ProtobufReader(body, context: "Event")
        var timestamp: UInt64 = 0
        var type: UInt64 = 0
        var typeOffset = body.startIndex
        var value: String?
        while !reader.isAtEnd {
            let (field, wireType, tagOffset) = try reader.readTag()
            switch (field, wireType) {
            case (1, ProtobufWireType.varint.rawValue): timestamp = try reader.readVarint()
            case (2, ProtobufWireType.varint.rawValue):
                typeOffset = tagOffset
                type = try reader.readVarint()
            case (3, ProtobufWireType.lengthDelimited.rawValue):
                let bytes = try reader.readLengthDelimited(field: 3)
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    throw CyfaceError(.malformed, offset: bytes.startIndex, "Event: value is not valid UTF-8")
                }
                value = string
            case (1, _), (2, _):
                throw reader.wrongWireType(field: field, wireType: wireType, offset: tagOffset, expected: "0")
            case (3, _):
                throw reader.wrongWireType(field: field, wireType: wireType, offset: tagOffset, expected: "2")
            default: try reader.skipField(field: field, wireType: wireType, tagOffset: tagOffset)
            }
        }
        guard let time = Int64(exactly: timestamp) else {
            throw CyfaceError(.valueOutOfRange, offset: body.startIndex, "Event: timestamp \(timestamp) exceeds Int64")
        }
        if type == 0 { return .metadata(CyfaceMetadataEvent(timestamp: time, value: value)) }
        guard let raw = Int(exactly: type), let eventType = EventType(rawValue: raw) else {
            throw CyfaceError(.malformed, offset: typeOffset, "Event: unknown event type \(type)")
        }
        return .event(Event(timestamp: time, type: eventType, value: value))
    }
}

/// An event of type `EVENT_TYPE_UNSPECIFIED` (0), which the server treats as metadata with a
/// free-form `key=value` string, e.g. `age=76`.
public struct CyfaceMetadataEvent: Sendable, Equatable, Hashable {
    /// Unix time in milliseconds.
    public var timestamp: Int64
    /// The `key=value` string, if any.
    public var value: String?

    /// Creates a metadata event.
    public init(timestamp: Int64, value: String?) {
        self.timestamp = timestamp
        self.value = value
    }
}
