public import CaptureCore

internal import CZlib

/// The container of a compressed stream.
public enum CompressionFormat: Sendable, Equatable, Hashable {
    /// Raw DEFLATE (RFC 1951), what the Cyface SDKs upload.
    case rawDeflate
    /// zlib (RFC 1950): 2-byte header, DEFLATE, Adler-32.
    case zlib
    /// gzip (RFC 1952): magic `1F 8B`.
    case gzip

    /// Guesses the container from the first two bytes: gzip by its magic, zlib by a valid header
    /// (method 8, window ≤ 32 KiB, header checksum divisible by 31), otherwise raw deflate.
    public static func detect(_ first: UInt8, _ second: UInt8) -> CompressionFormat {
        if first == 0x1F, second == 0x8B { return .gzip }
        if first & 0x0F == 8, first >> 4 <= 7, (UInt16(first) << 8 | UInt16(second)) % 31 == 0 { return .zlib }
        return .rawDeflate
    }
}

/// Streaming decompressor over the system zlib for raw deflate, zlib or gzip input.
///
/// With `format: nil` the container is detected from the first two bytes (see
/// ``CompressionFormat/detect(_:_:)``). Input may be fed in pieces of any size; output reaches the
/// sink in pieces of at most `chunkSize` bytes. ``finish()`` checks that the stream was complete.
/// Errors carry the offset in the compressed input.
public final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var buffer: [UInt8]
    private var initialised = false
    private var pending: [UInt8] = []
    private var ended = false
    private var consumed = 0

    /// The container, once known.
    public private(set) var format: CompressionFormat?

    /// Creates a decompressor; `format: nil` detects the container.
    public init(format: CompressionFormat? = nil, chunkSize: Int = 64 * 1024) throws(CyfaceError) {
        guard chunkSize >= 1 else { throw CyfaceError(.invalidArgument, "chunk size \(chunkSize) < 1") }
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = [UInt8](repeating: 0, count: chunkSize)
        if let format { try initialise(format) }
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether the end of the compressed stream has been reached.
    public var isComplete: Bool { ended }
    /// The number of compressed bytes consumed so far.
    public var totalIn: Int { consumed }
    /// The number of decompressed bytes produced so far.
    public var totalOut: Int { initialised ? Int(stream.pointee.total_out) : 0 }

    private func initialise(_ format: CompressionFormat) throws(CyfaceError) {
        // 15 = 32 KiB window; negative means raw; +16 means gzip.
        let windowBits: Int32 = switch format {
        case .rawDeflate: -15
        case .zlib: 15
        case .gzip: 31
        }
        let status = czlib_inflateInit2(stream, windowBits)
        guard status == Z_OK else { throw CyfaceError(.compression, "inflateInit2 failed with status \(status)") }
        initialised = true
    }

    /// Decompresses `input`, passing output to `sink`.
    ///
    /// - Throws: ``CyfaceError/Kind/compression`` for corrupt data or bytes after the end of the
    ///   stream, with the offset in the compressed input; errors thrown by `sink`.
    public func write(_ input: some Collection<UInt8>, to sink: ([UInt8]) throws -> Void) throws {
        var bytes = Array(input)
        if !initialised {
            pending += bytes
            guard pending.count >= 2 else { return }
            let detected = format ?? CompressionFormat.detect(pending[0], pending[1])
            format = detected
            try initialise(detected)
            bytes = pending
            pending = []
        }
        guard !bytes.isEmpty else { return }
        if ended {
            throw CyfaceError(.compression, offset: consumed, "data continues after the end of the compressed stream")
        }
        try bytes.withUnsafeMutableBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            let before = Int(stream.pointee.total_in)
            defer { consumed += Int(stream.pointee.total_in) - before }
            while stream.pointee.avail_in > 0 || !ended {
                let capacity = buffer.count
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(capacity)
                    let status = inflate(stream, Z_NO_FLUSH)
                    return (status, capacity - Int(stream.pointee.avail_out))
                }
                if produced > 0 { try sink(Array(buffer[0..<produced])) }
                switch status {
                case Z_STREAM_END:
                    ended = true
                    if stream.pointee.avail_in > 0 {
                        let offset = consumed + Int(stream.pointee.total_in) - before
                        throw CyfaceError(
                            .compression, offset: offset,
                            "\(stream.pointee.avail_in) bytes follow the end of the compressed stream")
                    }
                    return
                case Z_OK:
                    if stream.pointee.avail_in == 0, produced < capacity { return }
                case Z_BUF_ERROR:
                    // No progress possible: all input used and no output pending.
                    return
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                    let offset = consumed + Int(stream.pointee.total_in) - before
                    throw CyfaceError(.compression, offset: offset, "corrupt \(formatName) data: \(message)")
                }
            }
        }
    }

    /// Checks that the whole stream was received.
    ///
    /// - Throws: ``CyfaceError/Kind/truncated`` when the input ended before the stream's end marker.
    public func finish() throws(CyfaceError) {
        guard ended else {
            throw CyfaceError(
                .truncated, offset: consumed + pending.count,
                "the \(formatName) stream ends before its end marker (input truncated?)")
        }
    }

    private var formatName: String {
        switch format {
        case .rawDeflate, nil: "raw deflate"
        case .zlib: "zlib"
        case .gzip: "gzip"
        }
    }
}
