import CZlib
public import CaptureCore
import Foundation
import Glibc
import SystemPackage

/// The flush log (`capture.flushlog`): where live capture makes each flush durable between
/// database transactions.
///
/// A flush committed to SQLite every second costs far more writing than its data: the commit
/// rewrites whole 4 KiB pages (the last leaf of every table it appends to, their indexes, the
/// header page), and writes them twice (the journal and the database; the WAL and the
/// checkpoint, in WAL mode). In the log a flush of
/// samples is one record, written at the next 4 KiB boundary, and one `fdatasync`: a flush
/// under 4 KiB dirties one page. The samples go on to the database in larger transactions
/// (``StagedCommits``), each of which also stores the sequence number of the last record it
/// holds; records at or below it are spent.
///
/// The file is written from its start again after every such transaction, so it never grows
/// beyond the longest stretch between two of them and, allocated beforehand (``reserve(_:)``),
/// a record costs one page. The live
/// records are found from offset 0: records at 4 KiB boundaries, each the next sequence number
/// with a valid checksum; the first that is not ends the log. Since every transaction takes all
/// records up to the newest, a spent first record means that nothing is pending.
///
/// A record (little-endian): `CFL1`, sequence (u64), measurement (i64), payload length (u32),
/// CRC-32 of those 24 bytes and the payload (u32), payload. The payload: track (u32); batch count
/// (u32) and per batch sensor (u8), first and last time (i64), sample count (u32), length (u32),
/// bytes; fix count (u32) and per fix time (i64), latitude, longitude (f64), a mask of the
/// optional fields present (u16) and those (f64; satellites i64, mode u8); pressure count (u32)
/// and per sample time (i64), hPa (f64).
///
/// A flush with lifecycle events (a command: pause, resume, modality, stop) is a record of its
/// own kind, `CFL2`: the same payload, then the lifecycle state once it is applied (phase u8:
/// 0 idle, 1 capturing, 2 paused, 3 finished; track u32), the modality (a string) and the events
/// (count u32, per event time i64, type u8, value a string); a string is its length (u32,
/// `0xFFFFFFFF` for none) and its UTF-8 bytes. Its events wait here, durable, when the database
/// is busy, and go in with the next commit after the samples staged before them, as samples do.
///
/// A record that also asks the store for more than its flush (``Step``: a ride's measurement
/// begun under a reserved id, a ride counted or discarded, a measurement moved onto GNSS time)
/// is a `CFL3`: the `CFL2` payload (its event count may be 0) followed by its steps
/// (`FlushLog+Steps.swift`), so that with `ride.detect: auto` a ride's begin and end wait here
/// for a busy database as a command's events do.
///
/// One writer at a time: the recorder holds an exclusive `flock` on the file while it records;
/// any other process may apply what a dead recorder left (``Store/applyFlushLog(wait:dropping:)``).
public final class FlushLog {
    /// One record: a flush of a measurement, its samples and (a `CFL2` record) its events.
    public struct Record: Sendable {
        public var sequence: UInt64
        public var measurement: Int64
        public var flush: EncodedFlush
        /// What the record asks of the store besides its flush, in order (a `CFL3` record).
        public var steps: [Step] = []

        /// Whether it carries lifecycle events or steps: what must not wait for a staging limit.
        var carriesEvents: Bool { !flush.flush.events.isEmpty || !steps.isEmpty }
    }

    public static let fileName = "capture.flushlog"
    /// Records start at multiples of this.
    static let alignment = 4096
    static let headerSize = 28
    static let magic: [UInt8] = Array("CFL1".utf8)
    /// The magic of a record that carries events.
    static let eventsMagic: [UInt8] = Array("CFL2".utf8)
    /// The magic of a record that carries steps (and maybe events).
    static let stepsMagic: [UInt8] = Array("CFL3".utf8)

    /// What a record carries besides samples.
    enum Kind {
        case samples, events, steps
    }

    /// The kind of record `header` starts, or `nil` where none does.
    static func kind(_ header: [UInt8]) -> Kind? {
        switch Array(header.prefix(4)) {
        case magic: .samples
        case eventsMagic: .events
        case stepsMagic: .steps
        default: nil
        }
    }

    public let path: String
    private let fd: Int32
    /// Where the next record goes.
    public private(set) var offset = 0

    /// Opens (creating, 0600) the log of `directory` and locks it; `nil` when `wait` is false
    /// and another process holds it.
    public init?(directory: String, wait: Bool) throws(StoreError) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        let fd = PrivateFiles.open(path, O_RDWR)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        while flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            if errno == EINTR { continue }
            let error = errno
            close(fd)
            if error == EWOULDBLOCK { return nil }
            throw .cannotOpen(path: path, reason: String(cString: strerror(error)))
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether `directory` has a log with a record newer than `applied`: a cheap look (record
    /// headers only, no lock) before taking the lock and reading it all.
    static func mayHavePending(directory: String, after applied: UInt64) -> Bool {
        let path = (directory as NSString).appendingPathComponent(fileName)
        // Non-blocking: something other than a file in its place (a FIFO) must not hang a reader.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var position = 0
        var expected: UInt64?
        var header = [UInt8](repeating: 0, count: headerSize)
        while pread(fd, &header, headerSize, off_t(position)) == headerSize, kind(header) != nil {
            let (sequence, length) = header.withUnsafeBytes {
                (UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
                 Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 20, as: UInt32.self))))
            }
            if let expected, sequence != expected { break }
            if sequence > applied { return true }
            expected = sequence + 1
            position += rounded(headerSize + length)
        }
        return false
    }

    /// The live records: those from offset 0 with consecutive sequence numbers and valid
    /// checksums, newer than `applied`. The next record appended goes after them (and after
    /// any spent ones before them), so that the chain goes on.
    public func records(after applied: UInt64) throws(StoreError) -> [Record] {
        var records: [Record] = []
        var position = 0
        var expected: UInt64?
        while let (record, length) = try read(at: position) {
            if let expected, record.sequence != expected { break }
            // Records before `applied` in the chain: a transaction that took only some of them
            // (a full store, StagedCommits.commitWhatFits).
            if record.sequence > applied { records.append(record) }
            expected = record.sequence + 1
            position += Self.rounded(length)
        }
        offset = position
        return records
    }

    /// Appends a record at the next boundary and makes it durable.
    public func append(_ flush: EncodedFlush, steps: [Step] = [], sequence: UInt64, measurement: Int64) throws(StoreError) {
        let bytes = Self.encode(flush, steps: steps, sequence: sequence, measurement: measurement)
        do {
            try FileDescriptor(rawValue: fd).writeAll(toAbsoluteOffset: Int64(offset), bytes)
        } catch {
            throw Self.failure((error as? Errno)?.rawValue ?? EIO, path: path)
        }
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw Self.failure(errno, path: path) }
        }
        offset += Self.rounded(bytes.count)
    }

    /// Starts again at offset 0: every record written so far is in the database.
    public func rewind() { offset = 0 }

    /// Ends the log at offset 0 (its first header zeroed, durably): every record written so
    /// far is in the database, durably. The file keeps its size and blocks.
    public func clear() throws(StoreError) {
        let zeros = [UInt8](repeating: 0, count: Self.headerSize)
        while pwrite(fd, zeros, zeros.count, 0) < 0 {
            if errno != EINTR { throw Self.failure(errno, path: path) }
        }
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw Self.failure(errno, path: path) }
        }
        offset = 0
    }

    /// Allocates the file's first `size` bytes, if it is shorter. A record that extends the
    /// file costs ext4 two dirty pages rather than one (measured: /proc/PID/io `write_bytes`
    /// of an appending writer); one written into allocated space, one. Best effort: a file
    /// system without `fallocate` just grows as it is written.
    public func reserve(_ size: Int) {
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size < size else { return }
        _ = posix_fallocate(fd, 0, off_t(size))
    }

    /// A failed write or `fdatasync`. Never retried (but for EINTR): after an EIO, Linux marks
    /// the unwritten pages clean, so a second `fdatasync` would succeed without them
    /// (PostgreSQL's "fsyncgate"). The recorder stops on it and commits what it holds in memory.
    private static func failure(_ code: Int32, path: String) -> StoreError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .writeFailed(path: path, reason: String(cString: strerror(code)))
    }

    static func rounded(_ length: Int) -> Int { (length + alignment - 1) / alignment * alignment }

    /// The record at `position` and its length in bytes, or nil where none is.
    private func read(at position: Int) throws(StoreError) -> (Record, Int)? {
        var header = [UInt8](repeating: 0, count: Self.headerSize)
        guard pread(fd, &header, Self.headerSize, off_t(position)) == Self.headerSize, let kind = Self.kind(header)
        else { return nil }
        var reader = Reader(header)
        reader.skip(4)
        let sequence = reader.u64()
        let measurement = Int64(bitPattern: reader.u64())
        let length = Int(reader.u32())
        let checksum = reader.u32()
        // A damaged length must not make a huge allocation: the record has to fit in the file.
        var status = stat()
        guard fstat(fd, &status) == 0, length <= Int(status.st_size) - position - Self.headerSize else { return nil }
        var payload = [UInt8](repeating: 0, count: length)
        guard length == 0 || pread(fd, &payload, length, off_t(position + Self.headerSize)) == length else { return nil }
        var crc = crc32(0, header, 24)
        crc = payload.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        guard UInt32(crc) == checksum, let (flush, steps) = Self.decode(payload, kind: kind) else { return nil }
        return (Record(sequence: sequence, measurement: measurement, flush: flush, steps: steps), Self.headerSize + length)
    }
}
