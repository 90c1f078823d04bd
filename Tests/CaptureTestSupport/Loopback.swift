import Foundation
import Glibc

/// TCP on 127.0.0.1 for test servers and clients: a listener on a port the kernel picks, so that
/// tests running in parallel never compete for a fixed port.
package enum Loopback {
    /// A socket listening on 127.0.0.1 at a free port (close-on-exec); the caller closes it.
    package static func listen(backlog: Int32 = 16) throws -> (descriptor: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && Glibc.listen(fd, backlog) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A port that was free a moment ago (listened on, then closed), for a server that must be
    /// told its port, such as gpsfake.
    package static func freePort() throws -> UInt16 {
        let (fd, port) = try listen(backlog: 1)
        close(fd)
        return port
    }

    /// Whether something accepts connections on 127.0.0.1 at `port`.
    package static func canConnect(port: UInt16) -> Bool {
        guard let fd = connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// A connected socket to 127.0.0.1 at `port` (close it), or nil.
    package static func connect(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }
}
