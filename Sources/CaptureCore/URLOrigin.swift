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
