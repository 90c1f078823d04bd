import Glibc
import SystemPackage

/// A directory of small attribute files (sysfs), read and written with plain POSIX calls.
///
/// The path is taken as given, so tests can point it into a fake tree under a temporary root.
package struct SysfsDirectory: Sendable, Hashable {
    /// The directory's absolute path.
    package let path: String

    /// A directory at `path`.
    package init(path: String) {
        self.path = path
    }

    /// A subdirectory.
    package func appending(_ name: String) -> SysfsDirectory { SysfsDirectory(path: path + "/" + name) }

    /// Whether the directory exists.
    package var exists: Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `name` exists in the directory (file, directory or device node).
    package func contains(_ name: String) -> Bool { access(path + "/" + name, F_OK) == 0 }

    /// The entry names, without `.` and `..`; empty if the directory cannot be read.
    package func entries() -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The text of attribute `name`, or `nil` if it is absent or unreadable.
    package func read(_ name: String) -> String? {
        let fd = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Read to the end in chunks by hand, not with NIO's file system: CaptureSensors does not
        // import NIO, sources run on plain threads, and an attribute is a few bytes (a polled
        // device reads several per sample). swift-system retries interrupted reads.
        let file = FileDescriptor(rawValue: fd)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let count = try? chunk.withUnsafeMutableBytes({ try file.read(into: $0) }) else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The trimmed text of attribute `name`, or `nil`.
    package func value(_ name: String) -> String? {
        read(name).map { $0.trimmingWhitespace }
    }

    /// Writes `value` to attribute `name` (no newline; sysfs accepts either).
    package func write(_ name: String, _ value: String) throws(DeviceError) {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CLOEXEC | O_TRUNC)
        guard fd >= 0 else { throw DeviceError(path: file, action: "open for writing", errno: errno) }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw DeviceError(path: file, action: "write '\(value)' to", errno: written < 0 ? errno : EIO)
        }
    }
}

extension String {
    /// The text without leading and trailing blanks and line endings.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) ?? first
        return String(scalars[first...last])
    }
}

/// A device could not be opened, read, written or configured.
package struct DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or device concerned.
    package var path: String
    /// What was being done (`open`, `read`, `write '1' to`).
    package var action: String
    /// What went wrong, for a person.
    package var reason: String
    /// Whether the failure is a missing permission (EACCES/EPERM).
    package var isPermission: Bool

    /// An error from an `errno` value.
    package init(path: String, action: String, errno code: Int32) {
        self.path = path
        self.action = action
        reason = String(cString: strerror(code))
        isPermission = code == EACCES || code == EPERM
    }

    /// An error with a reason of its own.
    package init(path: String, action: String, reason: String) {
        self.path = path
        self.action = action
        self.reason = reason
        isPermission = false
    }

    /// One line: what could not be done to which file, and why.
    package var description: String {
        let hint = isPermission ? " (run as root or grant access with a udev rule)" : ""
        return "cannot \(action) \(path): \(reason)\(hint)"
    }
}
