import CaptureTestSupport
import Foundation
import Glibc

/// A scripted HTTP server on 127.0.0.1 (ephemeral port) that plays a hostile collector: the
/// n-th request gets the n-th reply, the last reply repeats. It reads each request completely
/// (headers and `Content-Length` body) before it answers, and closes the connection after every
/// answer. Its thread is stopped and joined when the value goes away.
final class HostileCollector: @unchecked Sendable {
    enum Reply: Sendable {
        /// These bytes, verbatim, then close.
        case raw(String)
        /// A TCP reset (SO_LINGER 0) instead of an answer.
        case reset
        /// Never answer; the connection stays open until the server stops.
        case silent
    }

    /// A well-formed answer with `Connection: close`.
    static func answer(_ status: Int, _ headers: [String] = [], body: String = "") -> Reply {
        .raw(
            (["HTTP/1.1 \(status) Whatever", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers)
                .joined(separator: "\r\n") + "\r\n\r\n" + body)
    }

    let port: Int
    private let listener: Int32
    private let replies: [Reply]
    private let lock = NSLock()
    private var stopping = false
    private var lines: [String] = []
    private var heads: [String] = []
    private var held: [Int32] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ replies: [Reply]) throws {
        self.replies = replies
        let (fd, port) = try Loopback.listen(backlog: 16)
        listener = fd
        self.port = Int(port)
        // The thread holds the server until `stop()`; a test calls it by `defer`.
        let thread = Thread { self.serve() }
        thread.start()
    }

    /// Stops the thread, waits for it, and closes every socket.
    func stop() {
        let first = lock.withLock {
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        done.wait()
        close(listener)
        for fd in lock.withLock({ held }) { close(fd) }
    }

    var url: String { "http://127.0.0.1:\(port)/api/v4" }

    /// The request lines received so far (`POST /api/v4/measurements HTTP/1.1`, …).
    var requests: [String] { lock.withLock { lines } }

    /// The heads (request line and header fields, CRLF-separated) of the requests received so far.
    var requestHeads: [String] { lock.withLock { heads } }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func serve() {
        defer { done.signal() }
        while !isStopping {
            var pollfd = Glibc.pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pollfd, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            guard let head = readRequest(connection) else {
                close(connection)
                continue
            }
            let line = head.components(separatedBy: "\r\n").first ?? ""
            let index = lock.withLock {
                heads.append(head)
                lines.append(line)
                return lines.count - 1
            }
            switch replies.isEmpty ? .reset : replies[min(index, replies.count - 1)] {
            case .raw(let text):
                var bytes = Array(text.utf8)
                var sent = 0
                while sent < bytes.count {
                    let count = bytes.withUnsafeMutableBytes { send(connection, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                    if count <= 0 { break }
                    sent += count
                }
                shutdown(connection, Int32(SHUT_WR))
                close(connection)
            case .reset:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(connection)
            case .silent:
                lock.withLock { held.append(connection) }
            }
        }
    }

    /// Reads one request (headers, then the body its Content-Length announces) and returns its
    /// head; nil if the client went away or took more than 5 s.
    private func readRequest(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var bodyLength = 0
        while true {
            if let headerEnd, data.count >= headerEnd + bodyLength { break }
            var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pollfd, 1, 5000) > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            data += buffer[0..<count]
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: data) {
                headerEnd = end + 4
                let head = String(decoding: data[0..<end], as: UTF8.self).lowercased()
                for field in head.split(separator: "\r\n") where field.hasPrefix("content-length:") {
                    bodyLength = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        return String(decoding: data[0..<max(0, (headerEnd ?? 4) - 4)], as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
