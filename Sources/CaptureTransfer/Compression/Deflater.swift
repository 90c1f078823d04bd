public import CaptureCore

internal import CZlib

/// Streaming raw DEFLATE (RFC 1951) compressor over the system zlib.
///
/// Configured like Java's `new Deflater(level, nowrap = true)`: windowBits −15, memLevel 8,
/// default strategy, so level 5 reproduces the SDKs' output for the same zlib. Input is consumed
/// chunk by chunk and output is handed to a sink in pieces of at most `chunkSize` bytes, so memory
/// stays bounded whatever the stream length.
///
/// ```swift
/// let deflater = try Deflater(level: 5)
/// var out: [UInt8] = []
/// try deflater.write(bytes) { out += $0 }
/// try deflater.finish { out += $0 }
/// ```
public final class Deflater {
    /// The level the Cyface SDKs use.
    public static let cyfaceLevel = 5

    private let stream: UnsafeMutablePointer<z_stream>
    private var buffer: [UInt8]
    private var finished = false

    /// Creates a compressor.
    ///
    /// - Parameters:
    ///   - level: 0 (store) … 9 (best); default 5.
    ///   - chunkSize: the largest piece handed to the sink.
    /// - Throws: ``CyfaceError/Kind/invalidArgument`` for a level outside 0…9 or a chunk size < 1;
    ///   ``CyfaceError/Kind/compression`` if zlib cannot initialise.
    public init(level: Int = Deflater.cyfaceLevel, chunkSize: Int = 64 * 1024) throws(CyfaceError) {
        guard (0...9).contains(level) else { throw CyfaceError(.invalidArgument, "deflate level \(level) is not in 0…9") }
        guard chunkSize >= 1 else { throw CyfaceError(.invalidArgument, "chunk size \(chunkSize) < 1") }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits −15: raw deflate with a 32 KiB window; memLevel 8 is zlib's and Java's default.
        let status = czlib_deflateInit2(stream, Int32(level), -15, 8, Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw CyfaceError(.compression, "deflateInit2 failed with status \(status)")
        }
        buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The number of uncompressed bytes consumed so far.
    public var totalIn: Int { Int(stream.pointee.total_in) }
    /// The number of compressed bytes produced so far.
    public var totalOut: Int { Int(stream.pointee.total_out) }

    /// Compresses `input`, passing any finished output to `sink`.
    public func write(_ input: UnsafeRawBufferPointer, to sink: ([UInt8]) throws -> Void) throws {
        guard !finished else { throw CyfaceError(.invalidArgument, "Deflater.write after finish") }
        guard let base = input.baseAddress, !input.isEmpty else { return }
        try run(base, input.count, flush: Z_NO_FLUSH, sink: sink)
    }

    /// Compresses `input`, passing any finished output to `sink`.
    public func write(_ input: some Collection<UInt8>, to sink: ([UInt8]) throws -> Void) throws {
        let done: Void? = try input.withContiguousStorageIfAvailable { buffer in
            try write(UnsafeRawBufferPointer(buffer), to: sink)
        }
        if done == nil {
            let copy = Array(input)
            try copy.withUnsafeBytes { try write($0, to: sink) }
        }
    }

    /// Ends the stream, passing the remaining output to `sink`. Further writes throw.
    public func finish(to sink: ([UInt8]) throws -> Void) throws {
        guard !finished else { return }
        var empty: UInt8 = 0
        try withUnsafeMutablePointer(to: &empty) { pointer in
            try run(UnsafeRawPointer(pointer), 0, flush: Z_FINISH, sink: sink)
        }
        finished = true
    }

    private func run(_ base: UnsafeRawPointer, _ count: Int, flush: Int32, sink: ([UInt8]) throws -> Void) throws {
        var remaining = count
        var next = base
        while true {
            // avail_in is 32-bit; feed very large inputs in slices.
            if stream.pointee.avail_in == 0, remaining > 0 {
                let slice = min(remaining, Int(UInt32.max / 2))
                stream.pointee.next_in = UnsafeMutablePointer(mutating: next.assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = UInt32(slice)
                next += slice
                remaining -= slice
            }
            let capacity = buffer.count
            let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = UInt32(capacity)
                let status = deflate(stream, remaining > 0 ? Z_NO_FLUSH : flush)
                return (status, capacity - Int(stream.pointee.avail_out))
            }
            if produced > 0 { try sink(Array(buffer[0..<produced])) }
            switch status {
            case Z_STREAM_END:
                return
            case Z_OK, Z_BUF_ERROR:
                // Done when all input is consumed and zlib left room in the buffer (nothing pending).
                if flush == Z_NO_FLUSH, remaining == 0, stream.pointee.avail_in == 0, produced < capacity { return }
                if status == Z_BUF_ERROR, produced == 0, stream.pointee.avail_in == 0, remaining == 0 {
                    if flush == Z_NO_FLUSH { return }
                    throw CyfaceError(.compression, "deflate made no progress")
                }
            default:
                throw CyfaceError(.compression, "deflate failed with status \(status)")
            }
        }
    }
}
