import Crypto
import Foundation
import SystemPackage

/// A transfer file to upload: where it is, how long it is, and its hash.
///
/// The one type for it, whether the store serialised a measurement into its cache
/// (``Store/transferFile(for:directory:)``) or a file was given as it is
/// (``init(hashing:)``, for transport benchmarks). The upload stores `size` and `sha256` with its
/// session, so a later run resumes the session only for the same bytes.
public struct TransferFile: Sendable, Equatable {
    /// The file's path; the cache's is `<data dir>/transfer/<id>.ccyf`.
    public var path: String
    /// Its size in bytes.
    public var size: Int64
    /// The SHA-256 of its bytes, 64 lowercase hex digits.
    public var sha256: String

    /// Creates a description of a transfer file.
    public init(path: String, size: Int64, sha256: String) {
        self.path = path
        self.size = size
        self.sha256 = sha256
    }

    /// The size of the file at `path`, without opening it (a FIFO in its place would block an
    /// open until something writes to it).
    ///
    /// - Throws: ``TransferError/cannotRead(path:reason:)`` if it is missing or not a regular file.
    public static func size(of path: String) throws(TransferError) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .cannotRead(path: path, reason: "not a regular file") }
        return Int64(status.st_size)
    }

    /// Describes the file at `path` as it is, hashing it in 1 MiB reads into one buffer
    /// (bounded memory; no allocation per read, which the 200 MB upload benchmark measures).
    /// It is opened without blocking, so a FIFO in its place is refused at once instead of
    /// waiting for a writer.
    ///
    /// - Throws: ``TransferError/cannotRead(path:reason:)`` if it cannot be opened or read, or is
    ///   not a regular file.
    public init(hashing path: String) throws(TransferError) {
        func failure(_ error: any Error) -> TransferError {
            .cannotRead(path: path, reason: (error as? Errno).map { String(cString: strerror($0.rawValue)) } ?? "\(error)")
        }
        let descriptor: FileDescriptor
        do {
            // O_NONBLOCK changes nothing for a regular file's reads.
            descriptor = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch {
            throw failure(error)
        }
        defer { try? descriptor.close() }
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0 else { throw failure(Errno(rawValue: errno)) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .cannotRead(path: path, reason: "not a regular file") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let count: Int
            do {
                count = try descriptor.read(into: buffer)
            } catch {
                throw failure(error)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            size += Int64(count)
        }
        self.init(path: path, size: size, sha256: hasher.finalize().hex)
    }
}

extension SHA256.Digest {
    /// The digest as lowercase hex, two digits per byte: the one place bytes become hex in
    /// this package (transfer-file hashes, cache fingerprints).
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(Self.byteCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
