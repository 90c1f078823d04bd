public import CaptureCore

/// A failure while encoding, compressing or decoding Cyface transfer data.
///
/// `kind` says what went wrong, `offset` where (when it applies) and `detail` explains it in words.
/// Offsets of ``Kind/compression`` errors count bytes of the *compressed* input; all other decoder
/// offsets count bytes of the *decompressed* stream, including the 2-byte `00 03` header.
public struct CyfaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a ``CyfaceError``.
    public enum Kind: Sendable, Equatable, Hashable {
        /// A scaled value or a delta does not fit its column (Int32 for values, Int64 for time).
        case valueOutOfRange
        /// A value to encode is NaN or infinite.
        case notFinite
        /// The data ends inside a field, a varint or the compressed stream.
        case truncated
        /// The bytes are not valid for the expected message (bad wire type, columns of unequal
        /// length, unknown event type, …).
        case malformed
        /// The data is in a transfer format version other than 3 (v1 and v2 are named as such).
        case unsupportedVersion(Int)
        /// zlib reported an error, or the compressed stream is corrupt.
        case compression
        /// Streamed sensor batches do not match the count or size declared beforehand.
        case summaryMismatch
        /// The caller passed an invalid argument (for example a batch size of 0).
        case invalidArgument
    }

    /// What went wrong.
    public var kind: Kind
    /// The byte offset of the problem, when it has one.
    public var offset: Int?
    /// A human-readable explanation naming the field or value concerned.
    public var detail: String

    /// Creates an error.
    public init(_ kind: Kind, offset: Int? = nil, _ detail: String) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }

    /// One line: the detail, followed by the offset if there is one.
    public var description: String {
        guard let offset else { return detail }
        return "\(detail) (at byte offset \(offset))"
    }
}
