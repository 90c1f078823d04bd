import CaptureStorage
import Foundation
import Glibc

/// A Unix stream socket at a path, with the request/reply framing of the control protocol: the
/// client writes one JSON line, the server answers one JSON line and closes.
enum ControlSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func errno(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(Glibc.errno)))")
    }

    /// Runs `body` with a `sockaddr_un` for `path`. Paths longer than `sun_path` go through
    /// `/proc/self/fd/N/` of an opened parent directory.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) throws -> T {
        var target = path
        var directoryFD: Int32 = -1
        defer { if directoryFD >= 0 { close(directoryFD) } }
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        if target.utf8.count >= capacity {
            let directory = (path as NSString).deletingLastPathComponent
            directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard directoryFD >= 0 else { throw errno("cannot open \(directory)") }
            target = "/proc/self/fd/\(directoryFD)/\((path as NSString).lastPathComponent)"
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(target.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Creates a listening socket at `path`, replacing a stale socket file.
    static func listen(at path: String) throws -> Int32 {
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw errno("socket") }
        do {
            try withAddress(path) { address, length in
                guard bind(fd, address, length) == 0 else { throw errno("cannot bind \(path)") }
            }
            // bind made the socket file with the umask's mode; only its owner may connect.
            PrivateFiles.restrict(path)
            guard Glibc.listen(fd, 16) == 0 else { throw errno("listen") }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Sends one request line and returns the reply line, or throws if nobody answers in time.
    static func exchange(_ request: Data, at path: String, timeout seconds: Int = 20) throws -> Data {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw errno("socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try withAddress(path) { address, length in
            guard connect(fd, address, length) == 0 else { throw errno("cannot connect to the recorder") }
        }
        try writeAll(fd, request + Data([0x0A]))
        shutdown(fd, Int32(SHUT_WR))
        return try readLine(fd)
    }

    static func writeAll(_ fd: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if Glibc.errno == EINTR { continue }
                    throw errno("write to the control socket")
                }
                offset += written
            }
        }
    }

    /// Reads up to the first newline (or EOF), at most 1 MiB.
    static func readLine(_ fd: Int32) throws -> Data {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while result.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw errno("read from the control socket")
            }
            if count == 0 { break }
            if let newline = buffer[0..<count].firstIndex(of: 0x0A) {
                result.append(contentsOf: buffer[0..<newline])
                return result
            }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }
}
