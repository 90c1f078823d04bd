import CaptureStorage
import Foundation
import Logging
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

    /// The user and process at the other end of a connected Unix socket (`SO_PEERCRED`: the
    /// kernel's record of who connected, which the peer cannot forge).
    struct Peer: Equatable {
        var pid: Int32
        var uid: UInt32
    }

    /// The peer of `fd`, or nil if the kernel does not say.
    static func peer(of fd: Int32) -> Peer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, laid out by hand: Glibc's ucred is
        // only declared under _GNU_SOURCE.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            Int(length) == MemoryLayout<(Int32, UInt32, UInt32)>.size
        else { return nil }
        return Peer(pid: credentials.0, uid: credentials.1)
    }

    /// Accepts one connection on `listener` (close-on-exec) and returns it if it comes from this
    /// process's own user; one from any other user (or whose user the kernel does not say) is
    /// closed unanswered, and `refused` gets a line saying so (the recorder's log). Nil when
    /// nothing was accepted or the connection was refused.
    ///
    /// The socket file is 0600 in a 0700 directory, so another user cannot normally connect at
    /// all; this check also holds when those modes were loosened.
    static func accept(
        _ listener: Int32, refused: (String) -> Void = { recorderLog.warning("\($0)") }
    ) -> Int32? {
        let client = Glibc.accept(listener, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        let owner = getuid()
        let connected = peer(of: client)
        guard let connected, connected.uid == owner else {
            let who = connected.map { "uid \($0.uid) (pid \($0.pid))" } ?? "an unknown user"
            refused("refused a control connection from \(who): only uid \(owner) may control this recorder")
            close(client)
            return nil
        }
        return client
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
