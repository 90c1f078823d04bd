/// What kind of fault an error is: what a caller (the command line, a service, a timer) needs to
/// decide what to do about it. Each library declares the kind beside its error; the command line
/// maps every kind to its documented exit code once, at its root, and adds the advice a person at
/// a shell needs.
public enum FaultKind: Sendable, Equatable, CaseIterable {
    /// Something unexpected; the message says what.
    case unexpected
    /// A measurement is open (start, delete) or not finished (a transfer file of it).
    case alreadyOpen
    /// No measurement is open.
    case notOpen
    /// The measurement is paused or interrupted.
    case notCapturing
    /// The measurement is capturing.
    case notPaused
    /// A bad argument or option value.
    case badArgument
    /// A malformed input file, or stored values a transfer file cannot hold.
    case badData
    /// A file, measurement or device that does not exist.
    case notFound
    /// A recorder, device or server that did not answer.
    case unavailable
    /// The disk or the store's budget is full; nothing committed was lost.
    case diskFull
    /// A database, file or device could not be read or written.
    case io
    /// Some measurements were not delivered; the others were.
    case incomplete
    /// Credentials refused, or a secret readable by others.
    case credentials
    /// A bad configuration, or one that lacks what the work needs.
    case configuration
}

/// An error that says which ``FaultKind`` it is.
public protocol KindedError: Error {
    var faultKind: FaultKind { get }
}
