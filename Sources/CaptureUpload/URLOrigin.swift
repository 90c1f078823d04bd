import Foundation

/// The origin of an http or https URL (RFC 6454): its scheme, host and port, the port filled in
/// from the scheme when the URL has none. Two URLs with the same origin reach the same server;
/// the bearer token is sent only within the origins a ``TokenScope`` allows.
///
/// ```swift
/// URLOrigin("https://Example.com/api/v4")?.description      // "https://example.com:443"
/// URLOrigin("http://127.0.0.1:8080/x") == URLOrigin("http://127.0.0.1:8080/y")   // true
/// ```
public struct URLOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, in lower case.
    public var scheme: String
    /// The host name or address, in lower case, without IPv6 brackets.
    public var host: String
    /// The port, explicit or the scheme's default (80, 443).
    public var port: Int

    /// The origin of `url`; nil unless it is an absolute http or https URL with a host.
    public init?(_ url: String) {
        guard let parsed = URL(string: url.trimmingCharacters(in: .whitespaces)),
            let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = parsed.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.scheme = scheme
        self.host = host
        self.port = parsed.port ?? (scheme == "https" ? 443 : 80)
    }

    /// `https://example.com:443`, `http://[::1]:8080`.
    public var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

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
