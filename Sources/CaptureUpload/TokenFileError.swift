/// Why a token file (``TokenFile/read(_:)``) cannot be used. Each case describes the fault; the
/// command line adds what to do about it.
public enum TokenFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be looked at (`stat` failed: missing, no permission on a directory…).
    case missing(path: String, reason: String)
    /// The file may be read by group or others; `mode` holds its permission bits.
    case exposed(path: String, mode: UInt32)
    /// The file exists but its bytes cannot be read.
    case unreadable(path: String)
    /// The file does not hold exactly one token on one line.
    case malformed(path: String)

    /// One line naming the fault.
    public var description: String {
        switch self {
        case .missing(let path, let reason): "cannot read the token file \(path): \(reason)"
        case .exposed(let path, let mode): "the token file \(path) is readable by group or others (mode \(String(mode, radix: 8)))"
        case .unreadable(let path): "cannot read the token file \(path)"
        case .malformed(let path): "the token file \(path) must hold one token on one line"
        }
    }
}
