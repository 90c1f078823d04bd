import Glibc

/// Whether `capture serve` can listen where `web.listen` says: the address is free, `capture
/// serve` answers there already (`GET /health`), or something else holds it.
package enum PagePort: Sendable, Equatable {
    case free
    case servedByCapture
    /// Taken by another program, or not an address of this box: why.
    case taken(String)

    /// Tries to bind `host`:`port` (IPv4 or IPv6 literal; port 0 is always free) and, when the
    /// address is in use, asks what answers there, waiting `timeout` seconds at most for it.
    package static func probe(host: String, port: Int, timeout: Int = 2) -> PagePort {
        guard port != 0 else { return .free }
        var hints = addrinfo(
            ai_flags: AI_NUMERICHOST | AI_PASSIVE, ai_family: AF_UNSPEC, ai_socktype: Int32(SOCK_STREAM.rawValue), ai_protocol: 0,
            ai_addrlen: 0, ai_addr: nil, ai_canonname: nil, ai_next: nil)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else { return .taken("\(host) is not an address") }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .taken(String(cString: strerror(errno))) }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return .free }
        let reason = errno
        guard reason == EADDRINUSE else { return .taken(String(cString: strerror(reason))) }
        return answersAsCapture(host: host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host, port: port, timeout: timeout)
            ? .servedByCapture : .taken("another program holds the port")
    }

    /// Whether `GET /health` at `host`:`port` answers `capture serve` (HTTP/1.0 over a plain
    /// socket, `timeout` seconds at most).
    private static func answersAsCapture(host: String, port: Int, timeout seconds: Int) -> Bool {
        var hints = addrinfo(
            ai_flags: AI_NUMERICHOST, ai_family: AF_UNSPEC, ai_socktype: Int32(SOCK_STREAM.rawValue), ai_protocol: 0,
            ai_addrlen: 0, ai_addr: nil, ai_canonname: nil, ai_next: nil)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return false }
        let request = Array("GET /health HTTP/1.0\r\nHost: capture\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return false }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while answer.count < 4096 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
            if String(decoding: answer, as: UTF8.self).contains("\r\n\r\ncapture serve") { return true }
        }
        return String(decoding: answer, as: UTF8.self).contains("\r\n\r\ncapture serve")
    }
}
