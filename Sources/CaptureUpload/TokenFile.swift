import Foundation

/// A file holding one bearer token on one line, readable by its owner only (mode 600 or
/// stricter): the configuration's `collector.token_file` (docs/configuration.md).
public enum TokenFile {
    /// Reads the token at `path`.
    ///
    /// - Throws: ``TokenFileError/missing(path:reason:)`` if it cannot be looked at,
    ///   ``TokenFileError/exposed(path:mode:)`` if group or others may read it,
    ///   ``TokenFileError/unreadable(path:)`` if its bytes cannot be read, and
    ///   ``TokenFileError/malformed(path:)`` unless it holds exactly one token on one line
    ///   (surrounding white space is ignored).
    public static func read(_ path: String) throws(TokenFileError) -> BearerToken {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .missing(path: path, reason: String(cString: strerror(errno)))
        }
        // Checked before reading, so a token others could read is never used.
        guard info.st_mode & 0o077 == 0 else { throw .exposed(path: path, mode: UInt32(info.st_mode & 0o777)) }
        guard let bytes = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == " " }) else {
            throw .malformed(path: path)
        }
        return BearerToken(token)
    }
}
