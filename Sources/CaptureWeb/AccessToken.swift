import CaptureStorage
import Foundation
import Glibc

/// The box's access token for its page: 32 random bytes as 64 hex digits in `web.token_file`
/// (mode 600), made at the first `capture serve` and kept after.
package struct AccessToken: Sendable {
    /// Why the token cannot be had.
    package enum Failure: Error, Sendable, Equatable {
        /// The file cannot be read or made: the path and the system's words.
        case unusable(path: String, reason: String)
        /// The file holds no token (empty, or under 16 characters).
        case tooShort(path: String)
    }

    /// The token itself.
    package let secret: String
    /// Whether this call made the file.
    package let created: Bool

    /// The token in `path`, made (32 random bytes, written and synced under another name, then
    /// renamed, so that a cut never leaves half a token) when the file does not exist; its
    /// directory (the data directory, by default) is made too, mode 700, when it is missing.
    package static func loadOrCreate(at path: String) throws(Failure) -> AccessToken {
        if let existing = FileManager.default.contents(atPath: path) {
            let secret = String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard secret.count >= 16 else { throw .tooShort(path: path) }
            return AccessToken(secret: secret, created: false)
        }
        guard errno == ENOENT || !FileManager.default.fileExists(atPath: path) else {
            throw .unusable(path: path, reason: String(cString: strerror(errno)))
        }
        do {
            try PrivateFiles.createDirectory((path as NSString).deletingLastPathComponent)
        } catch {
            throw .unusable(path: path, reason: "\(error)")
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let temporary = path + ".new"
        unlink(temporary)
        let fd = PrivateFiles.open(temporary, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { throw .unusable(path: path, reason: String(cString: strerror(errno))) }
        let bytes = Array((secret + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0, PrivateFiles.syncParent(of: path) == nil else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unusable(path: path, reason: reason)
        }
        return AccessToken(secret: secret, created: true)
    }

    /// Whether `given` is the token, in time that does not depend on where they differ.
    package func matches(_ given: String) -> Bool {
        let a = Array(secret.utf8), b = Array(given.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<a.count { difference |= a[index] ^ (index < b.count ? b[index] : 0) }
        return difference == 0
    }
}
