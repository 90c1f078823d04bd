import Crypto
import Foundation

extension UploadFile {
    /// Describes the file at `path`, hashing it in 1 MiB reads (bounded memory).
    public init(hashing path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalFileError(path: path, errno: errno) }
        defer { close(descriptor) }
        var hasher = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw LocalFileError(path: path, errno: errno) }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            size += Int64(n)
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        self.init(path: path, size: size, sha256: digest)
    }
}
