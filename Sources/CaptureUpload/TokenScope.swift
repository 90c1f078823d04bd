public import CaptureCore


/// Where the bearer token may go: the configured collector's origin and the origins the
/// settings trust explicitly (`--trust-origin`), as curl forwards credentials on a redirect only
/// with `--location-trusted`. ``UploadStateMachine`` asks it about every session URL.
public struct TokenScope: Sendable, Equatable {
    /// The collector's own origin (of its configured base URL).
    public var collector: URLOrigin
    /// Further origins trusted with the token.
    public var trusted: Set<URLOrigin>

    /// A scope of the collector's origin and `trusted`.
    public init(collector: URLOrigin, trusted: some Sequence<URLOrigin> = []) {
        self.collector = collector
        self.trusted = Set(trusted)
    }

    /// Whether the token may be sent to `url`: its origin is the collector's or a trusted one.
    public func allows(_ url: String) -> Bool {
        guard let origin = URLOrigin(url) else { return false }
        return origin == collector || trusted.contains(origin)
    }
}
