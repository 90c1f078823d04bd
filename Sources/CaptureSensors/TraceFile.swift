package import CaptureCore
import Glibc
import SystemPackage

/// Why a trace file could not be read.
package enum TraceFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not exist or cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// Reading failed midway.
    case readFailed(path: String, reason: String)
    /// A line is malformed, or a mark is illegal where it stands.
    case malformed(path: String, TraceError)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open trace \(path): \(reason)"
        case .readFailed(let path, let reason): "cannot read trace \(path): \(reason)"
        case .malformed(let path, let error): "\(path):\(error.line): expected \(error.expected)"
            + (error.found.isEmpty ? "" : ", found '\(error.found)'")
        }
    }
}

/// Reads a native trace file record by record, in bounded memory (one 1 MiB buffer).
package struct TraceFile: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// Checks that the file can be opened and starts with the trace header, without reading more.
    package func validateHeader() throws(TraceFileError) {
        let fd = try openFile()
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count: Int
        do {
            count = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
        } catch {
            throw .readFailed(path: path, reason: "\(error)")
        }
        let head = buffer[0..<count]
        let end = head.firstIndex(of: UInt8(ascii: "\n")) ?? count
        var parser = TraceParser()
        do {
            _ = try Array(head[0..<end]).withUnsafeBufferPointer { try parser.parse(line: $0, number: 1) }
        } catch let error as TraceError {
            throw .malformed(path: path, error)
        } catch {
            throw .readFailed(path: path, reason: "\(error)")
        }
    }

    /// Calls `body` with each record and its 1-based line number, in file order.
    ///
    /// Stops at the first malformed line with ``TraceFileError/malformed(path:_:)``; an error
    /// thrown by `body` is passed through unchanged.
    package func forEachRecord(_ body: (TraceRecord, Int) throws -> Void) throws {
        let fd = try openFile()
        defer { close(fd) }
        var parser = TraceParser()
        let capacity = 1 << 20
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0
        var lineNumber = 0
        var atEOF = false
        // Chunks read by hand rather than with NIO's file system: CaptureSensors does not import
        // NIO (a replay runs on a plain thread, NIO's file system is async), and lines are parsed
        // in place in this one buffer (memchr, no copy per line), which is what keeps
        // `capture replay` fast (scripts/bench-replay). swift-system retries interrupted reads.
        let file = FileDescriptor(rawValue: fd)
        while !atEOF {
            let count: Int
            do {
                count = try file.read(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[filled...])))
            } catch {
                throw TraceFileError.readFailed(path: path, reason: "\(error)")
            }
            if count == 0 {
                atEOF = true
            }
            filled += count
            var start = 0
            while start < filled {
                let remaining = UnsafeRawPointer(buffer.baseAddress! + start)
                let newline = memchr(remaining, 0x0A, filled - start)
                let end: Int
                if let newline {
                    end = start + (UnsafeRawPointer(newline) - remaining)
                } else if atEOF {
                    end = filled
                } else {
                    break
                }
                lineNumber += 1
                let line = UnsafeBufferPointer(rebasing: buffer[start..<end])
                let record: TraceRecord?
                do {
                    record = try parser.parse(line: line, number: lineNumber)
                } catch {
                    throw TraceFileError.malformed(path: path, error)
                }
                if let record { try body(record, lineNumber) }
                start = end + 1
            }
            if start >= filled {
                filled = 0
            } else {
                guard start > 0 else {
                    throw TraceFileError.malformed(
                        path: path, TraceError(line: lineNumber + 1, expected: "a line shorter than 1 MiB", found: ""))
                }
                let leftover = filled - start
                _ = memmove(buffer.baseAddress!, buffer.baseAddress! + start, leftover)
                filled = leftover
            }
        }
        if lineNumber == 0 {
            throw TraceFileError.malformed(
                path: path, TraceError(line: 1, expected: "'\(TraceFormat.magic)' (the file is empty)", found: ""))
        }
    }

    private func openFile() throws(TraceFileError) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .cannotOpen(path: path, reason: "it is a directory")
        }
        return fd
    }
}
