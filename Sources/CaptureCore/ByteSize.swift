/// A number of bytes, at least 1, as given on a command line or in a config file:
/// `65536`, `512K`, `64M`, `2G` (also `KB`, `KiB`, `MB`, `MiB`, `GB`, `GiB`, `B`, any case;
/// every suffix is a power of 1024).
///
/// ```swift
/// ByteSize(parsing: "512M")?.bytes  // 536_870_912
/// ByteSize(parsing: "12X")          // nil
/// ```
public struct ByteSize: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The size in bytes, at least 1.
    public let bytes: Int64

    /// A size of `bytes`; `nil` unless it is at least 1.
    public init?(bytes: Int64) {
        guard bytes > 0 else { return nil }
        self.bytes = bytes
    }

    /// Parses `65536`, `512K`, `64M`, `2G` and the like; `nil` for anything else, for zero, a
    /// negative number or a size beyond `Int64`.
    public init?(parsing text: String) {
        var digits = text.trimmingCharacters(in: " \t").uppercased()
        var factor: Int64 = 1
        for (suffix, value) in Self.suffixes where digits.hasSuffix(suffix) {
            digits.removeLast(suffix.count)
            factor = value
            break
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let number = Int64(digits) else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        self.init(bytes: bytes)
    }

    /// Longest first, so that `KIB` is not read as `B`.
    private static let suffixes: [(String, Int64)] = [
        ("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30),
        ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1),
    ]

    /// Examples of the accepted spellings, for messages.
    public static let examples = "65536, 512K, 64M or 2G"

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    /// The number of bytes, which ``init(parsing:)`` reads back.
    public var description: String { String(bytes) }

    /// Decodes a plain number of bytes (at least 1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let size = ByteSize(bytes: try container.decode(Int64.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a size must be at least 1 byte")
        }
        self = size
    }

    /// Encodes the number of bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    /// Without leading and trailing characters of `set` (Foundation-free).
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
