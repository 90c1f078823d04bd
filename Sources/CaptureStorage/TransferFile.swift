import Crypto
import Foundation

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

    /// Describes the file at `path` as it is, hashing it in 1 MiB reads (bounded memory).
    ///
    /// - Throws: ``TransferError/cannotRead(path:reason:)`` if it cannot be opened or read.
    public init(hashing path: String) throws(TransferError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += Int64(chunk.count)
            }
        } catch {
            let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = posix.map { String(cString: strerror(Int32($0.code))) } ?? "\(error)"
            throw .cannotRead(path: path, reason: reason)
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
