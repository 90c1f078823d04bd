import Foundation

/// A file holding one bearer token on one line, readable by its owner only (mode 600 or
/// stricter), as `--token-file`, `$CAPTURE_TOKEN_FILE` and `tokenFile` in upload.json name it.
public enum TokenFile {
    /// Reads the token at `path`.
    ///
    /// - Throws: ``UploadSettingsError/tokenFileMissing(path:reason:)`` if it cannot be looked
    ///   at, ``UploadSettingsError/tokenFileExposed(path:mode:)`` if group or others may read
    ///   it, ``UploadSettingsError/tokenFileUnreadable(path:)`` if its bytes cannot be read, and
    ///   ``UploadSettingsError/tokenFileMalformed(path:)`` unless it holds exactly one token on
    ///   one line (surrounding white space is ignored).
    public static func read(_ path: String) throws(UploadSettingsError) -> BearerToken {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .tokenFileMissing(path: path, reason: String(cString: strerror(errno)))
        }
        // Checked before reading, so a token others could read is never used.
        guard info.st_mode & 0o077 == 0 else { throw .tokenFileExposed(path: path, mode: UInt32(info.st_mode & 0o777)) }
        guard let bytes = FileManager.default.contents(atPath: path) else { throw .tokenFileUnreadable(path: path) }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == " " }) else {
            throw .tokenFileMalformed(path: path)
        }
        return BearerToken(token)
    }
}
