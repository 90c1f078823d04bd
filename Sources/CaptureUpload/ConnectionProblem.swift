import AsyncHTTPClient
import Foundation
import Glibc
import NIOCore
import NIOPosix

/// Why a request to the collector (or the issuer) got no HTTP answer, in the words every command
/// uses for it: `connection refused (127.0.0.1:1)`, `no such host (collector.example)`,
/// `timed out (collector.example:443)`. `upload`, `sync`, `status` (which shows what `sync`
/// stored) and `doctor` all print this description, so the same fault reads the same everywhere.
///
/// ```swift
/// ConnectionProblem(IOError(errnoCode: ECONNREFUSED, reason: "connect"), url: "http://127.0.0.1:1/").description
/// // "connection refused (127.0.0.1:1)"
/// ```
public struct ConnectionProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it was.
    public enum Kind: String, Sendable, Equatable {
        /// Nothing listens there (`ECONNREFUSED`).
        case refused = "connection refused"
        /// The name does not resolve.
        case noSuchHost = "no such host"
        /// No connection or no answer in time.
        case timedOut = "timed out"
        /// No route to the host or its network.
        case unreachable = "host unreachable"
        /// The connection was closed or reset before the answer was complete.
        case reset = "connection reset"
        /// The TLS handshake failed (certificate, protocol).
        case tls = "TLS failure"
        /// Anything else; ``ConnectionProblem/detail`` says what.
        case other = "network error"
    }

    /// What kind of failure it was.
    public var kind: Kind
    /// Where: `host:port`, or the host alone for a name that does not resolve.
    public var target: String
    /// The underlying error's own words, for the kinds that need them (TLS, other); else empty.
    public var detail: String

    /// Creates a problem from its parts.
    public init(kind: Kind, target: String, detail: String = "") {
        self.kind = kind
        self.target = target
        self.detail = detail
    }

    /// Reads what AsyncHTTPClient or SwiftNIO threw for a request to `url`.
    public init(_ error: any Error, url: String) {
        let (host, port) = Self.hostAndPort(url)
        let address = "\(host):\(port)"
        switch Self.classify(error) {
        case (.noSuchHost, _): self.init(kind: .noSuchHost, target: host)
        case (let kind, let detail): self.init(kind: kind, target: address, detail: detail)
        }
    }

    /// `connection refused (127.0.0.1:1)`; with the detail for TLS and other failures:
    /// `TLS failure (host:443): handshake failed`.
    public var description: String {
        let head = "\(kind.rawValue) (\(target))"
        return detail.isEmpty ? head : "\(head): \(detail)"
    }

    /// The kind of `error`, and the words to keep for the kinds that need them.
    private static func classify(_ error: any Error) -> (Kind, String) {
        switch error {
        case let error as NIOConnectionError:
            // Happy eyeballs: a failed lookup, or one failure per address tried.
            if error.dnsAError != nil || error.dnsAAAAError != nil { return (.noSuchHost, "") }
            if let first = error.connectionErrors.first { return classify(first.error) }
            return (.other, "\(error)")
        case is SocketAddressError.UnknownHost:
            return (.noSuchHost, "")
        case let error as IOError:
            return classify(errno: error.errnoCode, otherwise: "\(error)")
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                return (.timedOut, "")
            case .remoteConnectionClosed: return (.reset, "")
            default: return (.other, "\(error)")
            }
        case ChannelError.connectTimeout:
            return (.timedOut, "")
        case ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.outputClosed:
            return (.reset, "")
        default:
            // swift-nio-ssl's errors (NIOSSLError, BoringSSLError) are not imported here: the
            // module name is what tells them apart.
            if String(reflecting: type(of: error)).hasPrefix("NIOSSL.") { return (.tls, "\(error)") }
            return (.other, "\(error)")
        }
    }

    private static func classify(errno code: Int32, otherwise: String) -> (Kind, String) {
        switch code {
        case ECONNREFUSED: (.refused, "")
        case ETIMEDOUT: (.timedOut, "")
        case EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN: (.unreachable, "")
        case ECONNRESET, EPIPE, ECONNABORTED: (.reset, "")
        default: (.other, otherwise)
        }
    }

    /// The host and port of `url`, the port from the scheme when the URL names none.
    static func hostAndPort(_ url: String) -> (String, Int) {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            return (url, 0)
        }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        // An IPv6 literal is written in brackets before its port.
        return (host.contains(":") ? "[\(host)]" : host, port)
    }
}
